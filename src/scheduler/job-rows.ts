import { z } from "zod";
import { type PermissionProfile, permissionProfileSchema } from "./request.js";
import type { ScheduleSpec } from "./timing.js";

/** Scheduled jobs and runs as the store hands them out, and the parsing of their SQLite rows. */

export type JobStatus = "active" | "paused" | "done" | "removed";

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
  return { kind: "once", atMs: Date.parse(row.expression), timezone: row.timezone };
}

export function toJob(value: unknown): ScheduledJob {
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

export function toRun(value: unknown): ScheduledRun {
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
