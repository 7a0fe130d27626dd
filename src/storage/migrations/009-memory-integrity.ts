import type { Migration } from "./types.js";

/**
 * Memory integrity: the persisted queue of candidate/neighbour pairs the model judge could not
 * decide yet (never guessed over), and content-free records of what a forget redacted, so the same
 * redaction can be applied to another copy of the database (a backup) by id alone.
 */
export const memoryIntegrityMigration: Migration = {
  version: 9,
  name: "memory-integrity",
  up(database) {
    database.exec(`
      -- Ids only: a queued pair never holds a copy of a memory's text.
      CREATE TABLE memory_judge_queue (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        user_key TEXT NOT NULL,
        neighbour_ids TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX memory_judge_queue_user ON memory_judge_queue(user_key, id);

      -- Which rows a forget redacted (messages, episodes), by table and id. Never the text.
      CREATE TABLE memory_redactions (
        table_name TEXT NOT NULL CHECK (table_name IN ('messages','episodes')),
        row_id INTEGER NOT NULL,
        memory_id INTEGER NOT NULL,
        redacted_at TEXT NOT NULL,
        PRIMARY KEY (table_name, row_id)
      );
    `);
  },
};
