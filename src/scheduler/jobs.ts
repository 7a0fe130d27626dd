import { randomUUID } from "node:crypto";
import type { Clock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";
import { changeJobStatus } from "./job-pause.js";
import { type JobStatus, type ScheduledJob, type ScheduledRun, toJob, toRun } from "./job-rows.js";
import type { DuePlan } from "./timing.js";

export type { JobBudget, JobStatus, RunStatus, RunTiming, ScheduledJob, ScheduledRun } from "./job-rows.js";

// The profile's schema is with the request's (request.ts), which the schedule tools' declarations load
// without this store.
export { type PermissionProfile, permissionProfileSchema } from "./request.js";

/** What `add` takes: a job's own fields, without what the store sets (status, times; id unless fixed). */
export type NewJob = Omit<ScheduledJob, "id" | "status" | "statusReason" | "createdAt" | "updatedAt"> & {
  /** A fixed id (the heartbeat job); random otherwise. */
  id?: string;
};

export class JobNotFoundError extends Error {
  override name = "JobNotFoundError";
}

/** Jobs and their runs in SQLite. Claims are compare-and-set in one transaction: never twice. */
export class JobStore {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {}

  create(job: NewJob): ScheduledJob {
    const id = job.id ?? `job-${randomUUID().slice(0, 8)}`;
    const now = this.clock.now().toISOString();
    const spec = job.spec;
    const expression =
      spec.kind === "cron"
        ? spec.expression
        : spec.kind === "interval"
          ? String(spec.minutes)
          : new Date(spec.atMs).toISOString();
    this.database
      .prepare(
        `INSERT INTO scheduled_jobs (id, name, kind, expression, timezone, anchor_ms, task, owner, workspace, delivery,
           silent, grace_ms, run_tokens, run_usd, day_tokens, day_usd, permissions, status, next_due_ms, created_by,
           created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
      )
      .run(
        id,
        job.name,
        spec.kind,
        expression,
        spec.kind === "interval" ? "UTC" : (spec.timezone ?? "UTC"),
        spec.kind === "interval" ? spec.anchorMs : 0,
        job.task,
        job.owner,
        job.workspace,
        job.delivery,
        job.silent ? 1 : 0,
        job.graceMs,
        job.budget.runTokens,
        job.budget.runUsd,
        job.budget.dayTokens,
        job.budget.dayUsd,
        job.permissions ? JSON.stringify(job.permissions) : null,
        job.nextDueMs,
        job.createdBy,
        now,
        now,
      );
    return this.require(id);
  }

  get(id: string): ScheduledJob | null {
    const row: unknown = this.database.prepare("SELECT * FROM scheduled_jobs WHERE id = ?").get(id);
    return row === undefined ? null : toJob(row);
  }

  require(id: string): ScheduledJob {
    const job = this.get(id);
    if (!job) throw new JobNotFoundError(`no scheduled job "${id}"; see \`mercury schedule list\``);
    return job;
  }

  /** Jobs not removed, oldest first; `owner` limits to one person's jobs. */
  list(filter: { owner?: string; includeRemoved?: boolean } = {}): ScheduledJob[] {
    const clauses: string[] = [];
    const params: string[] = [];
    if (!filter.includeRemoved) clauses.push("status != 'removed'");
    if (filter.owner !== undefined) {
      clauses.push("owner = ?");
      params.push(filter.owner);
    }
    const where = clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
    return this.database
      .prepare(`SELECT * FROM scheduled_jobs ${where} ORDER BY created_at, rowid`)
      .all(...params)
      .map(toJob);
  }

  /** Jobs whose next due time has come (active or paused: a paused job records its skipped runs). */
  due(nowMs: number): ScheduledJob[] {
    return this.database
      .prepare(
        "SELECT * FROM scheduled_jobs WHERE status IN ('active','paused') AND next_due_ms IS NOT NULL AND next_due_ms <= ? ORDER BY next_due_ms, rowid",
      )
      .all(nowMs)
      .map(toJob);
  }

  /** Pausing, resuming, removing: see job-pause.ts for what a resume records first. */
  setStatus(id: string, status: JobStatus, reason: string | null): ScheduledJob {
    return changeJobStatus(this.database, this.clock, this, { id, status, reason });
  }

  /** A new interval for a job with a fixed id (the heartbeat follows config.yaml). */
  reschedule(id: string, minutes: number, nowMs: number, graceMs: number): ScheduledJob {
    this.database
      .prepare(
        `UPDATE scheduled_jobs SET kind = 'interval', expression = ?, anchor_ms = ?, next_due_ms = ?, grace_ms = ?,
           updated_at = ? WHERE id = ?`,
      )
      .run(String(minutes), nowMs, nowMs + minutes * 60_000, graceMs, this.clock.now().toISOString(), id);
    return this.require(id);
  }

  /**
   * The claim: moves the job's next due time from what was planned on to the next one, and inserts
   * the run, in one transaction. Returns null when another tick got there first.
   */
  claim(job: ScheduledJob, plan: Exclude<DuePlan, { action: "wait" }>, nowMs: number): ScheduledRun | null {
    const id = randomUUID();
    const now = this.clock.now().toISOString();
    const status = plan.action === "fire" ? "claimed" : plan.action === "miss" ? "missed" : "skipped";
    const claimed = this.database.transaction(() => {
      const moved = this.database
        .prepare(
          `UPDATE scheduled_jobs SET next_due_ms = ?, updated_at = ?,
             status = CASE WHEN ? IS NULL AND status = 'active' THEN 'done' ELSE status END
           WHERE id = ? AND next_due_ms = ?`,
        )
        .run(plan.nextDueMs, now, plan.nextDueMs, job.id, job.nextDueMs);
      if (moved.changes === 0) return false;
      const inserted = this.database
        .prepare(
          `INSERT INTO scheduled_runs (id, job_id, due_ms, first_due_ms, collapsed, fired_ms, late_ms, timing, status,
             reason, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(job_id, due_ms) DO NOTHING`,
        )
        .run(
          id,
          job.id,
          plan.dueMs,
          plan.firstDueMs,
          plan.collapsed,
          nowMs,
          plan.lateMs,
          plan.timing,
          status,
          plan.action === "miss"
            ? `missed: ${formatDuration(plan.lateMs)} late, outside the grace window of ${formatDuration(job.graceMs)}; not run`
            : plan.action === "skip"
              ? `skipped: the job is paused${job.statusReason ? ` (${job.statusReason})` : ""}`
              : null,
          now,
          now,
        );
      return inserted.changes > 0;
    })();
    return claimed ? this.requireRun(id) : null;
  }

  /** A manual run (`run-now`): its own due time, now, outside the regular sequence. */
  claimManual(job: ScheduledJob, nowMs: number): ScheduledRun {
    const id = randomUUID();
    const now = this.clock.now().toISOString();
    let dueMs = nowMs;
    // Two run-now in the same millisecond still get distinct rows.
    while (
      this.database.prepare("SELECT 1 FROM scheduled_runs WHERE job_id = ? AND due_ms = ?").get(job.id, dueMs)
    )
      dueMs++;
    this.database
      .prepare(
        `INSERT INTO scheduled_runs (id, job_id, due_ms, first_due_ms, collapsed, fired_ms, late_ms, timing, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, 1, ?, 0, 'manual', 'claimed', ?, ?)`,
      )
      .run(id, job.id, dueMs, dueMs, nowMs, now, now);
    return this.requireRun(id);
  }

  getRun(id: string): ScheduledRun | null {
    const row: unknown = this.database.prepare("SELECT * FROM scheduled_runs WHERE id = ?").get(id);
    return row === undefined ? null : toRun(row);
  }

  requireRun(id: string): ScheduledRun {
    const run = this.getRun(id);
    if (!run) throw new JobNotFoundError(`no scheduled run "${id}"`);
    return run;
  }

  runs(jobId: string, limit = 50): ScheduledRun[] {
    return this.database
      .prepare("SELECT * FROM scheduled_runs WHERE job_id = ? ORDER BY due_ms DESC, rowid DESC LIMIT ?")
      .all(jobId, Math.max(1, Math.floor(limit)))
      .map(toRun);
  }

  /**
   * The job's run that finished last before `runId`, by the order runs were recorded (rowid), never
   * by due times (a clock set back, a run-now): what a follow-up run answers beside.
   */
  previousFinished(jobId: string, runId: string): ScheduledRun | null {
    const row = this.database
      .prepare(
        "SELECT * FROM scheduled_runs WHERE job_id = ? AND id != ? AND status = 'finished' ORDER BY rowid DESC LIMIT 1",
      )
      .get(jobId, runId);
    return row === undefined ? null : toRun(row);
  }

  /** Runs a crash left claimed or running, and retries whose time has come. */
  unfinished(): ScheduledRun[] {
    return this.database
      .prepare("SELECT * FROM scheduled_runs WHERE status IN ('claimed','running') ORDER BY due_ms")
      .all()
      .map(toRun);
  }

  /** The job's runs marked running (by this process or another; the caller asks who is alive). */
  runningRuns(jobId: string): ScheduledRun[] {
    return this.database
      .prepare("SELECT * FROM scheduled_runs WHERE job_id = ? AND status = 'running' ORDER BY due_ms")
      .all(jobId)
      .map(toRun);
  }

  retriesDue(nowMs: number): ScheduledRun[] {
    return this.database
      .prepare(
        "SELECT * FROM scheduled_runs WHERE status = 'retry-wait' AND next_attempt_ms <= ? ORDER BY next_attempt_ms",
      )
      .all(nowMs)
      .map(toRun);
  }

  /** claimed|retry-wait -> running with this ledger task; false when someone else started it. */
  startRun(runId: string, taskId: string): boolean {
    return (
      this.database
        .prepare(
          `UPDATE scheduled_runs SET status = 'running', task_id = ?, attempts = attempts + 1, next_attempt_ms = NULL,
             updated_at = ? WHERE id = ? AND status IN ('claimed','retry-wait')`,
        )
        .run(taskId, this.clock.now().toISOString(), runId).changes > 0
    );
  }

  waitForRetry(runId: string, nextAttemptMs: number, reason: string): void {
    this.database
      .prepare(
        "UPDATE scheduled_runs SET status = 'retry-wait', next_attempt_ms = ?, reason = ?, updated_at = ? WHERE id = ?",
      )
      .run(nextAttemptMs, reason, this.clock.now().toISOString(), runId);
  }

  finishRun(
    runId: string,
    result: {
      outcome: string;
      reason: string | null;
      usage: { inputTokens: number; outputTokens: number; costUsd: number };
      refusals: string[];
    },
  ): ScheduledRun {
    this.database
      .prepare(
        `UPDATE scheduled_runs SET status = 'finished', outcome = ?, reason = ?, input_tokens = ?, output_tokens = ?,
           cost_usd = ?, refusals = ?, updated_at = ? WHERE id = ?`,
      )
      .run(
        result.outcome,
        result.reason,
        result.usage.inputTokens,
        result.usage.outputTokens,
        result.usage.costUsd,
        JSON.stringify(result.refusals),
        this.clock.now().toISOString(),
        runId,
      );
    return this.requireRun(runId);
  }

  setDelivery(runId: string, delivery: string): void {
    this.database
      .prepare("UPDATE scheduled_runs SET delivery = ?, updated_at = ? WHERE id = ?")
      .run(delivery, this.clock.now().toISOString(), runId);
  }
}

export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${ms} ms`;
  if (abs < 120_000) return `${Math.round(ms / 1000)} s`;
  if (abs < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (abs < 48 * 3_600_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} days`;
}
