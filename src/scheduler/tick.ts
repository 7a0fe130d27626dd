import type { JobStore, ScheduledJob, ScheduledRun } from "./jobs.js";
import { planDue } from "./timing.js";

export interface TickResult {
  /** Runs claimed by this tick that are to be executed now. */
  fire: { job: ScheduledJob; run: ScheduledRun }[];
  /** Due times recorded without running: missed (outside the grace window) or skipped (paused). */
  recorded: ScheduledRun[];
}

/**
 * One pass of the scheduler at `nowMs` (the caller's clock): for each job whose due time has come,
 * the timing rule decides, and the decision is claimed in SQLite before anything runs. Executing
 * the claimed runs is the caller's business, so this is a function of the store and the time only.
 */
export function tick(store: JobStore, nowMs: number): TickResult {
  const result: TickResult = { fire: [], recorded: [] };
  for (const job of store.due(nowMs)) {
    const plan = planDue(
      { spec: job.spec, status: job.status, nextDueMs: job.nextDueMs, graceMs: job.graceMs },
      nowMs,
    );
    if (plan.action === "wait") continue;
    const run = store.claim(job, plan, nowMs);
    if (!run) continue;
    if (plan.action === "fire") result.fire.push({ job, run });
    else result.recorded.push(run);
  }
  return result;
}

/** Milliseconds until the earliest due time (bounded by `maxMs`), so the daemon wakes on time. */
export function sleepUntilNextDue(store: JobStore, nowMs: number, maxMs: number): number {
  let earliest = Number.POSITIVE_INFINITY;
  for (const job of store.list()) {
    if ((job.status === "active" || job.status === "paused") && job.nextDueMs !== null)
      earliest = Math.min(earliest, job.nextDueMs);
  }
  return Math.max(0, Math.min(maxMs, earliest - nowMs));
}
