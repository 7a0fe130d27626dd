import type { Migration } from "./types.js";

/**
 * Long-term memory: the episodic archive (every turn), semantic memories with provenance and a
 * bitemporal validity interval, their full version history, the persistent extraction queue and its
 * recorded failures, and content-free tombstones of what the user deleted.
 *
 * Self-contained on purpose: nothing here references tables of other migrations, so the memory
 * schema can be created whatever else exists.
 */
export const memoryMigration: Migration = {
  version: 3,
  name: "memory",
  up(database) {
    database.exec(`
      CREATE TABLE episodes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_key TEXT NOT NULL,
        session_id TEXT NOT NULL,
        message_id INTEGER,
        role TEXT NOT NULL CHECK (role IN ('user','assistant','tool')),
        speaker TEXT,
        text TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX episodes_user_time ON episodes(user_key, created_at);
      CREATE INDEX episodes_session ON episodes(session_id, id);

      -- AUTOINCREMENT: an id is never reused, so a tombstone can never be confused with a newer memory.
      CREATE TABLE memories (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_key TEXT NOT NULL,
        project TEXT,
        kind TEXT NOT NULL CHECK (kind IN ('fact','preference','goal','decision','constraint','relationship','event','instruction')),
        text TEXT NOT NULL,
        -- Evidence kind of the version whose wording is kept (user words beat paraphrases).
        wording_evidence TEXT NOT NULL,
        evidence TEXT NOT NULL CHECK (evidence IN ('user-stated','user-confirmed','inferred','agent-observed','imported','manual')),
        confirmations INTEGER NOT NULL DEFAULT 0 CHECK (confirmations >= 0),
        contradictions INTEGER NOT NULL DEFAULT 0 CHECK (contradictions >= 0),
        importance TEXT NOT NULL CHECK (importance IN ('low','normal','high','critical')),
        source_session_id TEXT,
        source_message_ids TEXT NOT NULL DEFAULT '[]',
        source_quote TEXT,
        valid_from TEXT,
        valid_to TEXT,
        recorded_at TEXT NOT NULL,
        superseded_at TEXT,
        superseded_by INTEGER REFERENCES memories(id) ON DELETE SET NULL,
        tier TEXT NOT NULL DEFAULT 'active' CHECK (tier IN ('active','dormant','archived')),
        last_used_at TEXT,
        last_confirmed_at TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX memories_user_current ON memories(user_key, superseded_at, tier);

      CREATE TABLE memory_versions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        kind TEXT NOT NULL,
        importance TEXT NOT NULL,
        evidence TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (reason IN ('created','confirmed','edited','superseded','contradicted','imported','conflict')),
        source_session_id TEXT,
        source_message_ids TEXT NOT NULL DEFAULT '[]',
        source_quote TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX memory_versions_memory ON memory_versions(memory_id, id);

      -- Pairs the contradiction rule could not decide; both memories stay current until the user picks.
      CREATE TABLE memory_conflicts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_key TEXT NOT NULL,
        memory_a INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        memory_b INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        reason TEXT NOT NULL,
        detected_at TEXT NOT NULL,
        resolved_at TEXT
      );
      CREATE INDEX memory_conflicts_user ON memory_conflicts(user_key, resolved_at);

      CREATE TABLE extraction_jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_key TEXT NOT NULL,
        session_id TEXT NOT NULL,
        message_ids TEXT NOT NULL,
        -- Cleared when the job is done, so a finished job keeps no copy of the conversation.
        transcript_excerpt TEXT,
        status TEXT NOT NULL CHECK (status IN ('queued','running','done','failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        last_error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX extraction_jobs_due ON extraction_jobs(status, next_attempt_at);

      CREATE TABLE extraction_failures (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id INTEGER REFERENCES extraction_jobs(id) ON DELETE SET NULL,
        user_key TEXT NOT NULL,
        stage TEXT NOT NULL CHECK (stage IN ('extract','judge','provider')),
        raw_output TEXT NOT NULL,
        reason TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX extraction_failures_time ON extraction_failures(created_at);

      -- Content-free on purpose: which id was deleted, whose, and when. Never the text.
      CREATE TABLE memory_tombstones (
        memory_id INTEGER PRIMARY KEY,
        user_key TEXT NOT NULL,
        deleted_at TEXT NOT NULL
      );
    `);
  },
};
