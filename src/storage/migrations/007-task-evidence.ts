import type { Migration } from "./types.js";

/**
 * Evidence that belongs to a task rather than to one run of it (issue 10):
 * - `tasks.status` gains 'responded', so a plain answer is never stored or shown as "completed";
 * - `task_evidence`: the baseline taken before the task's first change, the verification command
 *   fixed at that moment, and every verification run, so "continue" and a crash-resume are judged
 *   against everything the task changed;
 * - `task_processes`: process groups a task's commands started, killed at the next start when
 *   Mercury died without ending them.
 * SQLite cannot alter a CHECK constraint, so `tasks` is rebuilt (the runner turns foreign keys off
 * around migrations, so the deliveries that reference tasks survive the rebuild).
 */
export const taskEvidenceMigration: Migration = {
  version: 7,
  name: "task-evidence",
  up(database) {
    database.exec(`
      CREATE TABLE tasks_rebuilt (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        user_key TEXT NOT NULL,
        channel TEXT NOT NULL,
        input TEXT NOT NULL,
        cwd TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued','running','paused','completed','responded','failed','cancelled')),
        outcome TEXT,
        reason TEXT,
        continuations INTEGER NOT NULL DEFAULT 0,
        resumes INTEGER NOT NULL DEFAULT 0,
        final_answer TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      INSERT INTO tasks_rebuilt
        SELECT id, session_id, user_key, channel, input, cwd,
               CASE WHEN status = 'completed' AND outcome = 'responded' THEN 'responded' ELSE status END,
               outcome, reason, continuations, resumes, final_answer, created_at, updated_at
        FROM tasks;
      DROP TABLE tasks;
      ALTER TABLE tasks_rebuilt RENAME TO tasks;
      CREATE INDEX tasks_status ON tasks(status, updated_at);
      CREATE INDEX tasks_user ON tasks(user_key, updated_at);
      CREATE INDEX tasks_session ON tasks(session_id, updated_at);

      -- One row per task that changed (or may change) files: JSON validated by src/agent/evidence.ts.
      CREATE TABLE task_evidence (
        task_id TEXT PRIMARY KEY,
        evidence TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );

      -- One row per process group a task's command runs in, deleted when the command ends.
      CREATE TABLE task_processes (
        pgid INTEGER NOT NULL,
        owner_pid INTEGER NOT NULL,
        -- Start times from /proc (clock ticks since boot; -1 unknown): a reused pid is not the owner.
        owner_start INTEGER NOT NULL,
        leader_start INTEGER NOT NULL,
        task_id TEXT,
        command TEXT NOT NULL,
        started_at TEXT NOT NULL,
        PRIMARY KEY (pgid, owner_pid)
      );
    `);
  },
};
