import { claimTask, liveOwner } from "../agent/task-owner.js";
import type { SqliteDatabase } from "../storage/database.js";
import type { JobStore, ScheduledRun } from "./jobs.js";

/**
 * Which process a scheduled run belongs to. A run marked "running" is also what a kill -9 leaves
 * behind (a `schedule run-now` without the daemon, a daemon killed mid-run), so the run's ledger
 * task carries an owner file (MERCURY_HOME/running/<task>.json: pid and its start time). The
 * runner writes it in the same SQLite write transaction that marks the run running, and removes it
 * only after the run's last write, so whoever sees the row "running" sees the owner file too: a
 * running row without a live owner is a run whose process is gone.
 */

/** What list, history, show and doctor say of a run whose process is gone. */
export const interruptedReason =
  "interrupted: the process running it is gone (killed or crashed); the daemon resumes it (`mercury start` when it is not running)";

/** A run marked running whose process is gone. */
export function runInterrupted(run: ScheduledRun, home: string): boolean {
  return run.status === "running" && (run.taskId === null || liveOwner(home, run.taskId) === null);
}

/**
 * claimed|retry-wait -> running with `taskId`, and this process recorded as its owner, in one write
 * transaction; false when another executor started it first.
 */
export function startOwnedRun(
  database: SqliteDatabase,
  store: JobStore,
  home: string | undefined,
  runId: string,
  taskId: string,
): boolean {
  return database
    .transaction(() => {
      if (!store.startRun(runId, taskId)) return false;
      if (home !== undefined) claimTask(home, taskId);
      return true;
    })
    .immediate();
}

export type Takeover = "mine" | "live-elsewhere" | "not-running";

/**
 * A running run this process is about to resume: still running (not finished in the meantime), and
 * its owner gone or this process. Checked and claimed under SQLite's write lock, which the owner's
 * last write (the run finished) also takes, so a run that just finished is never resumed a second time.
 */
export function takeOverRun(
  database: SqliteDatabase,
  store: JobStore,
  home: string | undefined,
  runId: string,
): Takeover {
  return database
    .transaction((): Takeover => {
      const latest = store.getRun(runId);
      if (latest?.status !== "running") return "not-running";
      if (home === undefined || latest.taskId === null) return "mine";
      const owner = liveOwner(home, latest.taskId);
      if (owner && owner.pid !== process.pid) return "live-elsewhere";
      claimTask(home, latest.taskId);
      return "mine";
    })
    .immediate();
}
