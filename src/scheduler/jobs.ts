import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Clock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";
import { type PermissionProfile, permissionProfileSchema } from "./request.js";
import { type DuePlan, planDue, type ScheduleSpec } from "./timing.js";

export type JobStatus = "active" | "paused" | "done" | "removed";

// The profile's schema is with the request's (request.ts), which the schedule tools' declarations load
// without this store.
export { type PermissionProfile, permissionProfileSchema } from "./request.js";

export interface JobBudget {
  runTokens: number | null;
  runUsd: number | null;
  dayTokens: number | null;
  dayUsd: number | null;
}

export interface ScheduledJob {
  id: string;
  name: string;
  spec: ScheduleSpec;
  task: string;
  owner: string;
  workspace: string;
  /** "terminal", "telegram:<chatId>" or "none". */
  delivery: string;
  /** Deliver only when the run did not succeed. */
  silent: boolean;
  graceMs: number;
  budget: JobBudget;
  permissions: PermissionProfile | null;
  status: JobStatus;
  statusReason: string | null;
  nextDueMs: number | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export type RunTiming = "on-time" | "late" | "missed" | "skipped" | "manual";
export type RunStatus = "claimed" | "running" | "retry-wait" | "finished" | "missed" | "skipped";

export interface ScheduledRun {
  id: string;
  jobId: string;
  dueMs: number;
  firstDueMs: number;
  collapsed: number;
  firedMs: number;
  lateMs: number;
  timing: RunTiming;
  status: RunStatus;
  taskId: string | null;
  attempts: number;
  nextAttemptMs: number | null;
  outcome: string | null;
  reason: string | null;
  usage: { inputTokens: number; outputTokens: number; costUsd: number };
  refusals: string[];
  delivery: string | null;
  createdAt: string;
}

const jobRow = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(["cron", "interval", "once"]),
  expression: z.string(),
  timezone: z.string(),
  anchor_ms: z.number(),
  task: z.string(),
  owner: z.string(),
  workspace: z.string(),
  delivery: z.string(),
  silent: z.number(),
  grace_ms: z.number(),
  run_tokens: z.number().nullable(),
  run_usd: z.number().nullable(),
  day_tokens: z.number().nullable(),
  day_usd: z.number().nullable(),
  permissions: z.string().nullable(),
  status: z.enum(["active", "paused", "done", "removed"]),
  status_reason: z.string().nullable(),
  next_due_ms: z.number().nullable(),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

const runRow = z.object({
  id: z.string(),
  job_id: z.string(),
  due_ms: z.number(),
  first_due_ms: z.number(),
  collapsed: z.number(),
  fired_ms: z.number(),
  late_ms: z.number(),
  timing: z.enum(["on-time", "late", "missed", "skipped", "manual"]),
  status: z.enum(["claimed", "running", "retry-wait", "finished", "missed", "skipped"]),
  task_id: z.string().nullable(),
  attempts: z.number(),
  next_attempt_ms: z.number().nullable(),
  outcome: z.string().nullable(),
  reason: z.string().nullable(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
  refusals: z.string().nullable(),
  delivery: z.string().nullable(),
  created_at: z.string(),
});

function specOf(row: z.infer<typeof jobRow>): ScheduleSpec {
  if (row.kind === "cron") return { kind: "cron", expression: row.expression, timezone: row.timezone };
  if (row.kind === "interval")
    return { kind: "interval", minutes: Number(row.expression), anchorMs: row.anchor_ms };
  return { kind: "once", atMs: Date.parse(row.expression) };
}

function toJob(value: unknown): ScheduledJob {
  const row = jobRow.parse(value);
  return {
    id: row.id,
    name: row.name,
    spec: specOf(row),
    task: row.task,
    owner: row.owner,
    workspace: row.workspace,
    delivery: row.delivery,
    silent: row.silent === 1,
    graceMs: row.grace_ms,
    budget: {
      runTokens: row.run_tokens,
      runUsd: row.run_usd,
      dayTokens: row.day_tokens,
      dayUsd: row.day_usd,
    },
    permissions: row.permissions === null ? null : permissionProfileSchema.parse(JSON.parse(row.permissions)),
    status: row.status,
    statusReason: row.status_reason,
    nextDueMs: row.next_due_ms,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRun(value: unknown): ScheduledRun {
  const row = runRow.parse(value);
  return {
    id: row.id,
    jobId: row.job_id,
    dueMs: row.due_ms,
    firstDueMs: row.first_due_ms,
    collapsed: row.collapsed,
    firedMs: row.fired_ms,
    lateMs: row.late_ms,
    timing: row.timing,
    status: row.status,
    taskId: row.task_id,
    attempts: row.attempts,
    nextAttemptMs: row.next_attempt_ms,
    outcome: row.outcome,
    reason: row.reason,
    usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens, costUsd: row.cost_usd },
    refusals: row.refusals === null ? [] : z.array(z.string()).parse(JSON.parse(row.refusals)),
    delivery: row.delivery,
    createdAt: row.created_at,
  };
}

export interface NewJob {
  name: string;
  spec: ScheduleSpec;
  task: string;
  owner: string;
  workspace: string;
  delivery: string;
  silent: boolean;
  graceMs: number;
  budget: JobBudget;
  permissions: PermissionProfile | null;
  nextDueMs: number | null;
  createdBy: string;
  /** A fixed id (the heartbeat job); random otherwise. */
  id?: string;
}

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
        spec.kind === "cron" ? spec.timezone : "UTC",
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

  setStatus(id: string, status: JobStatus, reason: string | null): ScheduledJob {
    const before = this.get(id);
    if (before && before.status === "paused" && status === "active") {
      this.recordPausedDueTimes(before);
      const done = this.require(id);
      if (done.status === "done") return done;
    }
    const result = this.database
      .prepare(
        "UPDATE scheduled_jobs SET status = ?, status_reason = ?, updated_at = ? WHERE id = ? AND status != 'removed'",
      )
      .run(status, reason, this.clock.now().toISOString(), id);
    if (result.changes === 0) this.require(id);
    return this.require(id);
  }

  /**
   * Resuming: due times that passed while the job was paused but no tick saw them (the daemon was
   * down, or the resume came between ticks) are recorded skipped first, so the resume never replays
   * them as a late run. A one-shot job whose only time passed this way is done.
   */
  private recordPausedDueTimes(job: ScheduledJob): void {
    const nowMs = this.clock.now().getTime();
    const plan = planDue(
      { spec: job.spec, status: "paused", nextDueMs: job.nextDueMs, graceMs: job.graceMs },
      nowMs,
    );
    if (plan.action !== "wait") this.claim(job, plan, nowMs);
    const after = this.get(job.id);
    if (after && after.status === "paused" && after.nextDueMs === null && job.spec.kind === "once") {
      this.database
        .prepare("UPDATE scheduled_jobs SET status = 'done', status_reason = ?, updated_at = ? WHERE id = ?")
        .run("its only due time passed while it was paused", this.clock.now().toISOString(), job.id);
    }
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
