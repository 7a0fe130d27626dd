import type { Clock } from "../agent/clock.js";
import { validateWorkspace } from "./authorization.js";
import { validateDeliveryTarget } from "./delivery.js";
import type { JobStore, ScheduledJob } from "./jobs.js";
import {
  defaultGraceMs,
  describeSpec,
  formatInZone,
  nextDueAfter,
  parseSchedule,
  ScheduleError,
  systemTimezone,
  zoneOf,
} from "./timing.js";
import { validateToolNames } from "./tool-names.js";

// The request schema lives in request.ts (the schedule_task tool carries it without loading this file).
export { type JobRequest, jobRequestSchema } from "./request.js";

import type { JobRequest } from "./request.js";

export interface JobCreationContext {
  store: JobStore;
  clock: Clock;
  owner: string;
  createdBy: string;
  defaultWorkspace: string;
  defaultDelivery: string;
  userHome: string;
  mercuryHome: string;
  /** How the request named its tools, for the error: "--tools" from the CLI. */
  toolsFlag?: string;
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
  const permissions = request.permissions
    ? {
        ...request.permissions,
        ...(request.permissions.tools
          ? { tools: validateToolNames(request.permissions.tools, context.toolsFlag ?? "permissions.tools") }
          : {}),
      }
    : null;
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
    permissions,
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
    timezone: zoneOf(job.spec),
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
    /** The next due time on the job's own clock ("2026-12-02 09:00 Europe/Berlin"); null without a zone. */
    nextDueLocal: localDue(job),
    createdBy: job.createdBy,
    createdAt: job.createdAt,
  };
}

function localDue(job: ScheduledJob): string | null {
  const zone = zoneOf(job.spec);
  return zone === null || job.nextDueMs === null ? null : formatInZone(job.nextDueMs, zone);
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
