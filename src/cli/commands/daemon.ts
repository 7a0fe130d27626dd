import type { Command } from "commander";
import { z } from "zod";
import { ConfigError } from "../../config/errors.js";
import { homePaths, mercuryHome } from "../../config/paths.js";
import { describeSandbox } from "../../sandbox/describe.js";
import { exitCodes } from "../exit-codes.js";
import { configFlagsFrom, type GlobalFlags } from "../flags.js";
import { stdoutColors } from "../terminal.js";

function paths() {
  return homePaths(mercuryHome(process.env));
}

function globalArgs(globals: GlobalFlags): string[] {
  return [
    ...(globals.provider ? ["--provider", globals.provider] : []),
    ...(globals.model ? ["--model", globals.model] : []),
    ...(globals.baseUrl ? ["--base-url", globals.baseUrl] : []),
  ];
}

const statusShape = z
  .object({
    pid: z.number(),
    uptimeSeconds: z.number(),
    version: z.string(),
    channels: z.array(
      z.object({
        name: z.string(),
        state: z.string(),
        restarts: z.number(),
        lastError: z.string().nullable(),
      }),
    ),
    tasks: z.object({
      active: z.array(z.object({ id: z.string(), status: z.string(), input: z.string() })),
      paused: z.array(z.object({ id: z.string(), input: z.string(), reason: z.string().nullable() })),
    }),
    pendingApprovals: z.array(z.object({ summary: z.string() })),
    budget: z.object({
      tokensToday: z.number(),
      costUsdToday: z.number(),
      dailyTokens: z.number().nullable(),
    }),
    sandbox: z.union([
      z.object({ available: z.literal(true), kind: z.enum(["bubblewrap", "sandbox-exec"]) }),
      z.object({ available: z.literal(false), reason: z.string(), fix: z.string() }),
    ]),
  })
  .passthrough();

/** start, stop, restart, status, logs, and the hidden `daemon run` the others launch. */
export function registerDaemonCommands(program: Command): void {
  program
    .command("start")
    .description("run Mercury in the background (the daemon)")
    .action(async (_options: object, command: Command) => {
      const { DaemonStartError, startDetached } = await import("../../daemon/control.js");
      const { AlreadyRunningError } = await import("../../daemon/lock.js");
      try {
        const { pid } = await startDetached({
          paths: paths(),
          env: process.env,
          globalArgs: globalArgs(command.optsWithGlobals<GlobalFlags>()),
        });
        process.stdout.write(`mercury started (pid ${pid})\n`);
      } catch (error) {
        if (error instanceof AlreadyRunningError || error instanceof DaemonStartError) {
          process.stderr.write(`mercury: ${error.message}\n`);
          process.exitCode = exitCodes.failure;
          return;
        }
        throw error;
      }
    });

  program
    .command("stop")
    .description("stop the daemon gracefully (running tasks are cancelled, not resumed)")
    .option("--timeout <seconds>", "how long to wait for it to exit", "30")
    .action(async (options: { timeout: string }) => {
      const seconds = parseSeconds(options.timeout);
      const { stopDaemon } = await import("../../daemon/control.js");
      const result = await stopDaemon(paths(), seconds * 1000);
      if (!result) {
        process.stdout.write("mercury is not running\n");
        return;
      }
      if (!result.stopped) {
        process.stderr.write(
          `mercury: the daemon (pid ${result.pid}) is still running after ${seconds}s; see \`mercury logs\`. ` +
            `To force it: kill -9 ${result.pid} (its running tasks are then resumed at the next start).\n`,
        );
        process.exitCode = exitCodes.failure;
        return;
      }
      process.stdout.write(`mercury stopped (pid ${result.pid})\n`);
    });

  program
    .command("restart")
    .description("stop the daemon (if running) and start it again")
    .option("--timeout <seconds>", "how long to wait for the old one to exit", "30")
    .action(async (options: { timeout: string }, command: Command) => {
      const seconds = parseSeconds(options.timeout);
      const { startDetached, stopDaemon } = await import("../../daemon/control.js");
      const stopped = await stopDaemon(paths(), seconds * 1000);
      if (stopped && !stopped.stopped) {
        process.stderr.write(
          `mercury: the daemon (pid ${stopped.pid}) did not stop within ${seconds}s; not restarting\n`,
        );
        process.exitCode = exitCodes.failure;
        return;
      }
      const { pid } = await startDetached({
        paths: paths(),
        env: process.env,
        globalArgs: globalArgs(command.optsWithGlobals<GlobalFlags>()),
      });
      process.stdout.write(`mercury restarted (pid ${pid})\n`);
    });

  program
    .command("status")
    .description("is the daemon running: pid, uptime, channels, tasks, approvals, budget")
    .option("--json", "print one JSON document")
    .action(async (options: { json?: boolean }) => {
      const { DaemonClient } = await import("../../daemon/client.js");
      const { readLiveLock } = await import("../../daemon/lock.js");
      const home = paths();
      const client = await DaemonClient.tryConnect(home.socket);
      if (!client) {
        const holder = readLiveLock(home.lock);
        const message = holder
          ? `the daemon (pid ${holder.pid}) holds the lock but does not answer on ${home.socket}; see \`mercury logs\``
          : "mercury is not running (start it with `mercury start`)";
        const { detectSandbox } = await import("../../sandbox/detect.js");
        const sandbox = detectSandbox();
        if (options.json)
          process.stdout.write(
            `${JSON.stringify({ running: false, pid: holder?.pid ?? null, message, sandbox })}\n`,
          );
        else process.stdout.write(`${message}\nsandbox: ${describeSandbox(sandbox)}\n`);
        process.exitCode = exitCodes.failure;
        return;
      }
      try {
        const status = await client.request({ type: "status" });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(status)}\n`);
          return;
        }
        process.stdout.write(formatStatus(statusShape.parse(status)));
      } finally {
        client.close();
      }
    });

  program
    .command("logs")
    .description("show the daemon's log (logs/daemon.log)")
    .option("-n, --lines <n>", "how many lines from the end", "50")
    .option("-f, --follow", "keep printing new lines until Ctrl+C")
    .option("--json", "print the raw JSON lines as written (one pino record per line)")
    .action(async (options: { lines: string; follow?: boolean; json?: boolean }) => {
      const count = z.coerce.number().int().min(0).max(1_000_000).safeParse(options.lines);
      if (!count.success)
        throw new ConfigError(`-n "${options.lines}": expected a whole number of lines (0 or more).`);
      const { daemonLogPath, followLog, tailLines } = await import("../../daemon/control.js");
      const path = daemonLogPath(paths());
      const { existsSync, statSync } = await import("node:fs");
      const printedUpTo = existsSync(path) ? statSync(path).size : 0;
      const { formatLogLine, lineFormatter } = await import("../../daemon/log-format.js");
      const colors = stdoutColors();
      const format = (line: string) => (options.json ? line : formatLogLine(line, colors));
      const lines = tailLines(path, count.data, printedUpTo);
      if (lines.length > 0) process.stdout.write(`${lines.map(format).join("\n")}\n`);
      if (!options.follow) return;
      const controller = new AbortController();
      process.once("SIGINT", () => controller.abort());
      process.once("SIGTERM", () => controller.abort());
      const formatChunk = lineFormatter(format);
      await followLog(
        path,
        (text) => process.stdout.write(formatChunk(text)),
        controller.signal,
        printedUpTo,
      );
    });

  const daemon = program.command("daemon", { hidden: true }).description("internal: the daemon process");
  daemon
    .command("run")
    .description("run the daemon in the foreground (what `start` and the service unit launch)")
    .action(async (_options: object, command: Command) => {
      const { runDaemon } = await import("../../daemon/run.js");
      const code = await runDaemon({ flags: configFlagsFrom(command.optsWithGlobals<GlobalFlags>()) });
      // Open handles (a Telegram long poll being torn down, approval timers) must not keep a stopped daemon alive.
      process.exit(code);
    });
}

function parseSeconds(raw: string): number {
  const parsed = z.coerce.number().positive().max(3600).safeParse(raw);
  if (!parsed.success) throw new ConfigError(`--timeout "${raw}": expected seconds between 1 and 3600.`);
  return parsed.data;
}

function formatStatus(status: z.infer<typeof statusShape>): string {
  const lines = [
    `mercury ${status.version} running (pid ${status.pid}, up ${formatDuration(status.uptimeSeconds)})`,
    `channels: ${status.channels.length === 0 ? "terminal socket only" : status.channels.map((c) => `${c.name} ${c.state}${c.restarts ? ` (${c.restarts} restarts)` : ""}${c.lastError ? ` — ${c.lastError}` : ""}`).join(", ")}`,
    `tasks: ${status.tasks.active.length} active, ${status.tasks.paused.length} paused`,
    ...status.tasks.active.map(
      (task) => `  ${task.status} ${task.id.slice(0, 8)} ${task.input.slice(0, 60)}`,
    ),
    ...status.tasks.paused.map(
      (task) =>
        `  paused  ${task.id.slice(0, 8)} ${task.input.slice(0, 60)}${task.reason ? ` — ${task.reason}` : ""}`,
    ),
    `approvals pending: ${status.pendingApprovals.length}`,
    `sandbox: ${describeSandbox(status.sandbox)}`,
    `budget today: ${status.budget.tokensToday} tokens${status.budget.dailyTokens === null ? "" : ` of ${status.budget.dailyTokens}`}, $${status.budget.costUsdToday.toFixed(4)}`,
  ];
  return `${lines.join("\n")}\n`;
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
  return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
}
