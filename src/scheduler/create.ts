import { z } from "zod";
import type { Clock } from "../agent/clock.js";
import { validateWorkspace } from "./authorization.js";
import { validateDeliveryTarget } from "./delivery.js";
import { type JobStore, permissionProfileSchema, type ScheduledJob } from "./jobs.js";
import {
  defaultGraceMs,
  describeSpec,
  nextDueAfter,
  parseSchedule,
  ScheduleError,
  systemTimezone,
} from "./timing.js";

/** What a person (CLI, /schedule) or the model (schedule_task) asks for; parsed before anything is stored. */
export const jobRequestSchema = z
  .object({
    schedule: z
      .string()
      .min(1)
      .describe(
        'when: "every 30 minutes", 5 cron fields like "0 9 * * 1-5", "at 2026-12-24T18:00" or "in 20 minutes"',
      ),
    task: z.string().min(1).max(8000).describe("what to do each time, as you would tell the agent"),
    name: z.string().min(1).max(80).optional().describe("a short name; the task's start otherwise"),
    timezone: z.string().min(1).optional().describe("IANA zone, e.g. Europe/Berlin; the system's otherwise"),
    workspace: z
      .string()
      .min(1)
      .optional()
      .describe("absolute folder the job runs in; never the home directory"),
    delivery: z.string().optional().describe('"terminal", "telegram:<chat id>" or "none"'),
    silent: z.boolean().optional().describe("deliver only when a run does not succeed"),
    graceMinutes: z
      .number()
      .positive()
      .max(7 * 24 * 60)
      .optional()
      .describe("how late a run may still start"),
    runTokens: z.number().int().positive().optional().describe("token budget of one run"),
    runUsd: z.number().positive().optional().describe("USD budget of one run"),
    dayTokens: z.number().int().positive().optional().describe("token budget per day (UTC)"),
    dayUsd: z.number().positive().optional().describe("USD budget per day (UTC)"),
    permissions: permissionProfileSchema.optional().describe("narrow the owner's permissions for this job"),
  })
  .strict();
export type JobRequest = z.infer<typeof jobRequestSchema>;

export interface JobCreationContext {
  store: JobStore;
  clock: Clock;
  owner: string;
  createdBy: string;
  defaultWorkspace: string;
  defaultDelivery: string;
  userHome: string;
  mercuryHome: string;
}

/** Validates every field (clear errors naming the field) and stores the job; returns it. */
export function createJob(request: JobRequest, context: JobCreationContext): ScheduledJob {
  const nowMs = context.clock.now().getTime();
  const timezone = request.timezone ?? systemTimezone();
  const spec = parseSchedule(request.schedule, { timezone, nowMs });
  const workspace = validateWorkspace(
    request.workspace ?? context.defaultWorkspace,
    context.userHome,
    context.mercuryHome,
  );
  const delivery = validateDeliveryTarget(request.delivery ?? context.defaultDelivery);
  const firstDue = nextDueAfter(spec, nowMs);
  if (firstDue === null)
    throw new ScheduleError(`the schedule "${request.schedule}" is never due; nothing to schedule`);
  return context.store.create({
    name: request.name ?? request.task.replace(/\s+/g, " ").slice(0, 40),
    spec,
    task: request.task,
    owner: context.owner,
    workspace,
    delivery,
    silent: request.silent ?? false,
    graceMs:
      request.graceMinutes !== undefined
        ? Math.round(request.graceMinutes * 60_000)
        : defaultGraceMs(spec, nowMs),
    budget: {
      runTokens: request.runTokens ?? null,
      runUsd: request.runUsd ?? null,
      dayTokens: request.dayTokens ?? null,
      dayUsd: request.dayUsd ?? null,
    },
    permissions: request.permissions ?? null,
    nextDueMs: firstDue,
    createdBy: context.createdBy,
  });
}

/** One job as shown by list/show and the tools (JSON-ready). */
export function presentJob(job: ScheduledJob) {
  return {
    id: job.id,
    name: job.name,
    schedule: describeSpec(job.spec),
    kind: job.spec.kind,
    timezone: job.spec.kind === "cron" ? job.spec.timezone : null,
    task: job.task,
    owner: job.owner,
    workspace: job.workspace,
    delivery: job.delivery,
    silent: job.silent,
    graceMinutes: Math.round((job.graceMs / 60_000) * 100) / 100,
    budget: job.budget,
    permissions: job.permissions,
    status: job.status,
    statusReason: job.statusReason,
    nextDueAt: job.nextDueMs === null ? null : new Date(job.nextDueMs).toISOString(),
    createdBy: job.createdBy,
    createdAt: job.createdAt,
  };
}

/** A sentence for confirmations: what will run, when, where, and where the result goes. */
export function describeJobRequest(request: JobRequest, workspace: string, delivery: string): string {
  const limits = [
    request.runTokens ? `${request.runTokens} tokens/run` : null,
    request.runUsd ? `$${request.runUsd}/run` : null,
    request.dayTokens ? `${request.dayTokens} tokens/day` : null,
    request.dayUsd ? `$${request.dayUsd}/day` : null,
  ].filter((item) => item !== null);
  return `Schedule "${request.task}" (${request.schedule}${request.timezone ? `, ${request.timezone}` : ""}) in ${workspace}, results to ${delivery}${limits.length ? `, budget ${limits.join(", ")}` : ""}${request.permissions ? `, permissions narrowed to ${JSON.stringify(request.permissions)}` : ""}`;
}
