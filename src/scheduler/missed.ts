import type { ScheduledRun } from "./job-rows.js";
import type { JobStore } from "./jobs.js";

/**
 * The job's latest dealt-with due time when it was missed (Mercury was not running, or too late to
 * catch up inside the grace window), as one line; null when its latest run was not missed. A missed
 * run is recorded, never run; without this line the list read as if nothing had been due.
 */
export function missedNote(store: JobStore, jobId: string): string | null {
  const [latest] = store.runs(jobId, 1);
  if (latest === undefined || latest.timing !== "missed") return null;
  return describeMissed(latest);
}

export function describeMissed(run: ScheduledRun): string {
  const times =
    run.collapsed > 1
      ? `${run.collapsed} due times from ${new Date(run.firstDueMs).toISOString()} to ${new Date(run.dueMs).toISOString()} were`
      : `the due time ${new Date(run.dueMs).toISOString()} was`;
  return `${times} missed while Mercury was not running or the machine was asleep (${run.reason ?? "not run"})`;
}
