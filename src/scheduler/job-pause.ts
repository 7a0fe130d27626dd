import type { Clock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";
import type { JobStatus, ScheduledJob, ScheduledRun } from "./job-rows.js";
import { type DuePlan, planDue } from "./timing.js";

/**
 * Pause and resume bookkeeping, apart from the claims (jobs.ts): a job's status change, and what a
 * resume records before the job is active again. The claim itself stays the store's (one
 * compare-and-set transaction); this file only asks for it.
 */
export interface StatusStore {
  get(id: string): ScheduledJob | null;
  require(id: string): ScheduledJob;
  claim(job: ScheduledJob, plan: Exclude<DuePlan, { action: "wait" }>, nowMs: number): ScheduledRun | null;
}

export function changeJobStatus(
  database: SqliteDatabase,
  clock: Clock,
  store: StatusStore,
  change: { id: string; status: JobStatus; reason: string | null },
): ScheduledJob {
  const { id, status, reason } = change;
  const before = store.get(id);
  if (before && before.status === "paused" && status === "active") {
    recordPausedDueTimes(database, clock, store, before);
    const done = store.require(id);
    if (done.status === "done") return done;
  }
  const result = database
    .prepare(
      "UPDATE scheduled_jobs SET status = ?, status_reason = ?, updated_at = ? WHERE id = ? AND status != 'removed'",
    )
    .run(status, reason, clock.now().toISOString(), id);
  if (result.changes === 0) store.require(id);
  return store.require(id);
}

/**
 * Resuming: due times that passed while the job was paused but no tick saw them (the daemon was
 * down, or the resume came between ticks) are recorded skipped first, so the resume never replays
 * them as a late run. A one-shot job whose only time passed this way is done.
 */
function recordPausedDueTimes(
  database: SqliteDatabase,
  clock: Clock,
  store: StatusStore,
  job: ScheduledJob,
): void {
  const nowMs = clock.now().getTime();
  const plan = planDue(
    { spec: job.spec, status: "paused", nextDueMs: job.nextDueMs, graceMs: job.graceMs },
    nowMs,
  );
  if (plan.action !== "wait") store.claim(job, plan, nowMs);
  const after = store.get(job.id);
  if (after && after.status === "paused" && after.nextDueMs === null && job.spec.kind === "once") {
    database
      .prepare("UPDATE scheduled_jobs SET status = 'done', status_reason = ?, updated_at = ? WHERE id = ?")
      .run("its only due time passed while it was paused", clock.now().toISOString(), job.id);
  }
}
