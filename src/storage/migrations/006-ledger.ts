import type { Migration } from "./types.js";

/** The persistent work ledger: every daemon task and whether its final answer reached the person. */
export const ledgerMigration: Migration = {
  version: 6,
  name: "ledger",
  up(database) {
    database.exec(`
      -- One row per task. status moves queued -> running -> paused|completed|failed|cancelled; a crash
      -- leaves 'running', which the next start resumes (resumes counts how often).
      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        user_key TEXT NOT NULL,
        channel TEXT NOT NULL,
        input TEXT NOT NULL,
        cwd TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued','running','paused','completed','failed','cancelled')),
        outcome TEXT,
        reason TEXT,
        continuations INTEGER NOT NULL DEFAULT 0,
        resumes INTEGER NOT NULL DEFAULT 0,
        final_answer TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX tasks_status ON tasks(status, updated_at);
      CREATE INDEX tasks_user ON tasks(user_key, updated_at);

      -- One row per outgoing final answer and target (e.g. the terminal that attached over the socket).
      -- Written 'pending' before the send and marked 'sent' after it, so an answer is sent once.
      CREATE TABLE task_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
        target TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending','sent','failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        delivered_at TEXT,
        UNIQUE (task_id, target)
      );
      CREATE INDEX task_deliveries_status ON task_deliveries(status, id);
    `);
  },
};
