import type { Migration } from "./types.js";

/** Scheduled jobs and one row per run (fired, late, missed, skipped), so history never lies. */
export const schedulerMigration: Migration = {
  version: 8,
  name: "scheduler",
  up(database) {
    database.exec(`
      -- kind cron: expression is 5 cron fields read in timezone; interval: expression is minutes,
      -- anchored at anchor_ms; once: expression is the ISO instant. Times are epoch milliseconds.
      CREATE TABLE scheduled_jobs (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('cron','interval','once')),
        expression TEXT NOT NULL,
        timezone TEXT NOT NULL,
        anchor_ms INTEGER NOT NULL,
        task TEXT NOT NULL,
        owner TEXT NOT NULL,
        workspace TEXT NOT NULL,
        delivery TEXT NOT NULL,
        silent INTEGER NOT NULL DEFAULT 0,
        grace_ms INTEGER NOT NULL,
        run_tokens INTEGER,
        run_usd REAL,
        day_tokens INTEGER,
        day_usd REAL,
        permissions TEXT,
        status TEXT NOT NULL CHECK (status IN ('active','paused','done','removed')),
        status_reason TEXT,
        next_due_ms INTEGER,
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX scheduled_jobs_due ON scheduled_jobs(status, next_due_ms);

      -- One row per due time the scheduler dealt with. UNIQUE(job_id, due_ms) plus the compare-and-set
      -- on scheduled_jobs.next_due_ms in the same transaction is the claim: a due time runs at most once.
      CREATE TABLE scheduled_runs (
        id TEXT PRIMARY KEY,
        job_id TEXT NOT NULL REFERENCES scheduled_jobs(id) ON DELETE CASCADE,
        due_ms INTEGER NOT NULL,
        first_due_ms INTEGER NOT NULL,
        collapsed INTEGER NOT NULL DEFAULT 1,
        fired_ms INTEGER NOT NULL,
        late_ms INTEGER NOT NULL,
        timing TEXT NOT NULL CHECK (timing IN ('on-time','late','missed','skipped','manual')),
        status TEXT NOT NULL CHECK (status IN ('claimed','running','retry-wait','finished','missed','skipped')),
        task_id TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_ms INTEGER,
        outcome TEXT,
        reason TEXT,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0,
        refusals TEXT,
        delivery TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (job_id, due_ms)
      );
      CREATE INDEX scheduled_runs_status ON scheduled_runs(status, next_attempt_ms);
    `);
  },
};
