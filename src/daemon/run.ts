import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { WorkLedger } from "../agent/ledger.js";
import { DeliveryLedger } from "../agent/ledger-deliveries.js";
import { adoptProcessGroups } from "../agent/process-ledger.js";
import { createApp } from "../app/container.js";
import { createLogger, type Logger } from "../app/logger.js";
import { DaemonGateway } from "../channels/gateway.js";
import { version } from "../cli/version.js";
import type { ConfigFlags } from "../config/load.js";
import { mountDashboard } from "../dashboard/control.js";
import type { createDaemonScheduler } from "../scheduler/daemon.js";
import type { SqliteDatabase } from "../storage/database.js";
import { errorFields } from "./error-fields.js";
import { installProcessGuards } from "./guards.js";
import { AlreadyRunningError, acquireLock } from "./lock.js";
import { copyTruncateIfLarge, daemonLogName, logMaxBytes } from "./log-rotation.js";
import { SocketServer, socketUserKey } from "./socket-server.js";
import { buildStatus } from "./status.js";
import { Supervisor } from "./supervisor.js";

// Kept in log-rotation.ts so `start`, `stop` and `logs` read them without loading the daemon runtime.
export { daemonLogName, logMaxBytes };

/** How long a graceful stop waits for cancelled tasks to wind down. */
const shutdownTaskTimeoutMs = 10_000;
/** How long start-up waits for a channel's first start before recovering work without it. */
const channelStartWaitMs = 5000;

export interface DaemonOptions {
  env?: NodeJS.ProcessEnv;
  flags?: ConfigFlags;
}

/**
 * The daemon in the foreground (`mercury daemon run`, what `start` and the service unit launch):
 * the instance lock, the agent, the socket, the supervised channels, and recovery of what a crash
 * left: pending approvals asked again, interrupted tasks resumed, undelivered answers sent.
 * Resolves with the exit code after a graceful stop.
 */
export async function runDaemon(options: DaemonOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const app = createApp({ env, extractAfterTasks: true, ...(options.flags ? { flags: options.flags } : {}) });
  let lock: ReturnType<typeof acquireLock>;
  try {
    lock = acquireLock(app.paths.lock, version);
  } catch (error) {
    app.close();
    if (error instanceof AlreadyRunningError) {
      process.stderr.write(`mercury: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const damage = quickCheck(app.database);
  if (damage !== null) {
    const [{ listBackups }, { backupsDirectory }] = await Promise.all([
      import("../storage/backup.js"),
      import("../storage/backup-schedule.js"),
    ]);
    const newest = listBackups(backupsDirectory(app.home))[0];
    process.stderr.write(
      `mercury: the database failed its integrity check (${damage}). ${
        newest
          ? `Restore the newest backup: \`mercury backup restore ${newest.name}\` (taken ${newest.takenAt}).`
          : "There is no backup; run `mercury doctor`."
      }\n`,
    );
    lock.release();
    app.close();
    return 2;
  }
  const logger = createLogger(app.paths.logs, app.config.log.level, app.redactor, daemonLogName);
  const startedAt = new Date();
  const guards = installProcessGuards(logger, () => lock.release());

  const ledger = new WorkLedger(app.database, app.clock);
  const orphans = adoptProcessGroups(app.database, app.clock);
  if (orphans.length > 0)
    logger.warn({ pids: orphans }, "stopped commands a previous Mercury process left running");
  const deliveries = new DeliveryLedger(app.database, app.clock);
  const workspace = join(app.home, "workspace");
  mkdirSync(workspace, { recursive: true });
  const gateway = new DaemonGateway({ app, ledger, deliveries, defaultCwd: workspace });
  const supervisor = new Supervisor({ logger });
  // The web dashboard: started below when dashboard.enabled, or later by `mercury dashboard`.
  const dashboard = mountDashboard({
    app,
    gateway,
    ledger,
    ownerKey: socketUserKey,
    status: () => socket.options.status(),
    logger,
    logPath: join(app.paths.logs, daemonLogName),
  });
  const socket: SocketServer = new SocketServer({
    path: app.paths.socket,
    gateway,
    ledger,
    deliveries,
    logger,
    pendingApprovals: () =>
      app.approvals.pendingFor(socketUserKey).map((record) => ({
        type: "approval-request" as const,
        approvalId: record.id,
        summary: record.summary,
        rule: record.rule,
        expiresAt: record.expires_at,
        taskId: record.task_id,
        sessionId: record.session_id,
        userKey: record.user_key,
        at: app.clock.now().toISOString(),
      })),
    agents: {
      // Socket clients act as the owner: they see and stop every sub-agent of this daemon.
      list: () => app.subagents.list().map(({ controller: _controller, ...agent }) => agent),
      stop: (agentId) => app.subagents.stop(agentId, "stopped by the owner (mercury agents stop)"),
    },
    // Loaded on the first /model, /resume or /undo, not before the socket answers.
    chat: async (request) => (await import("./chat-requests.js")).handleChatRequest(app, gateway, request),
    dashboard: (request) => dashboard.handle(request),
    status: (): unknown => ({
      ...buildStatus({
        app,
        ledger,
        deliveries,
        gateway,
        channels: supervisor.status(),
        startedAt,
        version,
        unhandledRejections: guards.unhandledRejections(),
      }),
      socketClients: socket.clientCount(),
    }),
  });

  const rotation = setInterval(() => {
    try {
      if (copyTruncateIfLarge(join(app.paths.logs, daemonLogName), logMaxBytes(env)))
        logger.info("daemon.log rotated");
    } catch (error) {
      logger.error({ ...errorFields(error) }, "daemon.log rotation failed");
    }
  }, 30_000);
  rotation.unref();
  // Started once the socket answers (see startup below): what `mercury start` waits for is the
  // socket, so maintenance, backups, the scheduler and Telegram load after it.
  let stopMaintenance: (() => void) | null = null;
  let stopBackups: (() => void) | null = null;
  let scheduled: ReturnType<typeof createDaemonScheduler> | null = null;

  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let stopping = false;
  /** A deliberate stop cancels running work; a failed start must not (that work resumes next time). */
  const shutdown = async (reason: string, cancelWork = true) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, cancelWork }, "stopping");
    try {
      if (cancelWork) {
        const result = await gateway.shutdown(
          `cancelled: Mercury was stopped (${reason})`,
          shutdownTaskTimeoutMs,
        );
        logger.info({ cancelled: result.cancelled, timedOut: result.timedOut }, "tasks cancelled");
      }
      stopMaintenance?.();
      stopBackups?.();
      await dashboard.stop();
      await scheduled?.scheduler.stop(`Mercury was stopped (${reason})`);
      await supervisor.stopAll();
      await socket.close();
      await app.drain(shutdownTaskTimeoutMs);
      clearInterval(rotation);
      app.approvals.close();
      app.close();
      logger.info("stopped");
      logger.flush();
      finish(0);
    } catch (error) {
      logger.error({ ...errorFields(error) }, "graceful stop failed");
      finish(1);
    } finally {
      lock.release();
      guards.remove();
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    void shutdown(signal === "SIGTERM" ? "SIGTERM (mercury stop)" : signal);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  let startFailed = false;
  const startup = async () => {
    dashboard.checkConfiguredBind();
    await socket.listen();
    const [
      { startMaintenance },
      { backupKeep, scheduleDailyBackup },
      { createDaemonScheduler },
      { telegramChannelFor },
    ] = await Promise.all([
      import("./maintenance.js"),
      import("../storage/backup-schedule.js"),
      import("../scheduler/daemon.js"),
      import("./telegram.js"),
    ]);
    if (stopping) return;
    stopMaintenance = startMaintenance(app, logger);
    stopBackups = scheduleDailyBackup(
      app.database,
      app.home,
      backupKeep(env),
      (path) => logger.info({ path }, "database backup written"),
      (error) => logger.error({ ...errorFields(error) }, "database backup failed"),
    );
    // Scheduled jobs (the heartbeat among them) run through the scheduler, under their own rules.
    const daemonScheduler = createDaemonScheduler(app, {
      ledger,
      deliveries,
      logger,
      workspace,
      flushTerminal: () => socket.flushDeliveries(),
    });
    scheduled = daemonScheduler;
    await dashboard.startIfEnabled();
    const telegram = telegramChannelFor(app, gateway, logger, workspace);
    if (telegram.channel) {
      // A channel that is slow to come up (network down) must not hold back recovery: wait a
      // bounded time, and re-ask pending approvals when it does come up so they reach it too.
      let firstStart = true;
      supervisor.onRunning((name) => {
        if (name !== "telegram" || firstStart) return;
        app.approvals.pendingForRestart();
      });
      const added = supervisor.add(telegram.channel).finally(() => {
        firstStart = false;
      });
      await Promise.race([added, new Promise((resolve) => setTimeout(resolve, channelStartWaitMs))]);
      firstStart = false;
    } else {
      logger.info({ reason: telegram.reason }, "telegram channel not started");
    }
    if (stopping) return;
    // Recovery, after the channels listen so the re-asked approvals and resumed replies reach them.
    const approvals = app.approvals.pendingForRestart();
    const resumed = gateway.resumeInterrupted();
    daemonScheduler.scheduler.start();
    const paused = ledger.list({ statuses: ["paused"] });
    logger.info(
      {
        pid: process.pid,
        version,
        home: app.home,
        pendingApprovals: approvals.length,
        resumed: resumed.map((task) => task.id),
        paused: paused.map((task) => ({ id: task.id, reason: task.reason })),
      },
      "daemon ready",
    );
  };
  startup().catch(async (error: unknown) => {
    startFailed = true;
    logger.fatal({ ...errorFields(error) }, "daemon failed to start");
    await shutdown("start failed", false);
  });
  const code = await finished;
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
  return startFailed ? 1 : code;
}

export type { Logger };

/** SQLite's quick integrity check; null when sound. */
function quickCheck(database: SqliteDatabase): string | null {
  try {
    const rows = database.pragma("quick_check") as Record<string, unknown>[];
    const first = rows[0] ? String(Object.values(rows[0])[0]) : "no result";
    return first === "ok" ? null : first;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
