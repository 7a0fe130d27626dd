import type { WorkLedger } from "../agent/ledger.js";
import type { DeliveryLedger } from "../agent/ledger-deliveries.js";
import type { MercuryApp } from "../app/container.js";
import type { Logger } from "../app/logger.js";
import { telegramApiRootFromEnv } from "../channels/telegram/bot.js";
import { heartbeatInstructions, heartbeatTask } from "../daemon/heartbeat.js";
import { readSoul } from "../soul/soul.js";
import type { AnyTool } from "../tools/types.js";
import { scheduledRunAuthorizer } from "./authorization.js";
import { deliverRunMessage } from "./delivery.js";
import { JobStore, type ScheduledJob } from "./jobs.js";
import { ScheduledRunner } from "./runner.js";
import { Scheduler } from "./service.js";
import { defaultGraceMs } from "./timing.js";

export const heartbeatJobId = "heartbeat";
const defaultMaxSleepMs = 30_000;

export interface DaemonSchedulerOptions {
  ledger: WorkLedger;
  deliveries: DeliveryLedger;
  logger: Logger;
  workspace: string;
  /** The tools a run may use (before the job's narrowing); the app's otherwise. */
  tools?: readonly AnyTool[];
  flushTerminal(): void;
}

/** MERCURY_SCHEDULER_TICK_MS: the longest sleep between ticks (tests make it short). */
export function schedulerMaxSleepMs(env: NodeJS.ProcessEnv): number {
  const raw = env.MERCURY_SCHEDULER_TICK_MS;
  if (raw === undefined || raw.trim() === "") return defaultMaxSleepMs;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 10 || value > 3_600_000) {
    throw new Error(`MERCURY_SCHEDULER_TICK_MS must be an integer from 10 to 3600000, got "${raw}"`);
  }
  return value;
}

/** The daemon's scheduler over the app: its runner, delivery targets and the heartbeat job. */
export function createDaemonScheduler(app: MercuryApp, options: DaemonSchedulerOptions) {
  const store = new JobStore(app.database, app.clock);
  const token = app.env.TELEGRAM_BOT_TOKEN?.trim();
  const apiRoot = telegramApiRootFromEnv(app.env);
  const telegram = token ? { token, ...(apiRoot !== undefined ? { apiRoot } : {}) } : null;
  const runner = new ScheduledRunner({
    database: app.database,
    clock: app.clock,
    store,
    ledger: options.ledger,
    agent: app.agent,
    tools: options.tools ?? app.tools,
    logger: options.logger,
    authorizerFor: (job, identity) => scheduledRunAuthorizer(app, job, identity),
    deliver: (job, taskId, message) =>
      deliverRunMessage(
        {
          database: app.database,
          deliveries: options.deliveries,
          flushTerminal: options.flushTerminal,
          telegram,
        },
        job.delivery,
        taskId,
        message,
      ),
    taskText: (job) => (job.id === heartbeatJobId ? heartbeatText(app) : job.task),
    home: app.paths.home,
  });
  ensureHeartbeatJob(
    store,
    app.config.heartbeat.intervalMinutes,
    app.clock.now().getTime(),
    options.workspace,
  );
  const scheduler = new Scheduler({
    store,
    runner,
    clock: app.clock,
    logger: options.logger,
    maxSleepMs: schedulerMaxSleepMs(app.env),
    home: app.paths.home,
  });
  return { store, runner, scheduler };
}

function heartbeatText(app: MercuryApp): string | null {
  const instructions = heartbeatInstructions(readSoul(app.paths.soul).heartbeat);
  return instructions === null ? null : heartbeatTask(instructions);
}

/**
 * The heartbeat is an ordinary interval job with a fixed id, following heartbeat.intervalMinutes:
 * created when first enabled, rescheduled when the interval changes, paused when it is 0.
 */
export function ensureHeartbeatJob(
  store: JobStore,
  minutes: number,
  nowMs: number,
  workspace: string,
): ScheduledJob | null {
  const existing = store.get(heartbeatJobId);
  if (minutes <= 0) {
    if (existing && existing.status === "active")
      return store.setStatus(heartbeatJobId, "paused", "heartbeat.intervalMinutes is 0 in config.yaml");
    return existing;
  }
  const spec = { kind: "interval" as const, minutes, anchorMs: nowMs };
  if (!existing) {
    return store.create({
      id: heartbeatJobId,
      name: "heartbeat",
      spec,
      task: "the standing instructions of soul/heartbeat.md (read at each run)",
      owner: "owner",
      workspace,
      delivery: "terminal",
      silent: false,
      graceMs: defaultGraceMs(spec, nowMs),
      budget: { runTokens: null, runUsd: null, dayTokens: null, dayUsd: null },
      permissions: null,
      nextDueMs: nowMs + minutes * 60_000,
      createdBy: "config.yaml heartbeat.intervalMinutes",
    });
  }
  let job = existing;
  if (job.spec.kind !== "interval" || job.spec.minutes !== minutes)
    job = store.reschedule(heartbeatJobId, minutes, nowMs, defaultGraceMs(spec, nowMs));
  if (job.status === "paused" && job.statusReason === "heartbeat.intervalMinutes is 0 in config.yaml")
    job = store.setStatus(heartbeatJobId, "active", null);
  return job;
}
