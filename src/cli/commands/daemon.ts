import type { Command } from "commander";
import { ConfigError } from "../../config/errors.js";
import { homePaths, mercuryHome } from "../../config/paths.js";
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

/** start, stop, restart, status, logs, and the hidden `daemon run` the others launch. */
export function registerDaemonCommands(program: Command): void {
  program
    .command("start")
    .description("run Mercury in the background (the daemon)")
    .option("--json", "print one JSON document")
    .action(async (options: { json?: boolean }, command: Command) => {
      const { DaemonStartError, startDetached } = await import("../../daemon/control.js");
      const { AlreadyRunningError } = await import("../../daemon/lock.js");
      try {
        const { pid } = await startDetached({
          paths: paths(),
          env: process.env,
          globalArgs: globalArgs(command.optsWithGlobals<GlobalFlags>()),
        });
        say(options, { ok: true, running: true, pid }, `mercury started (pid ${pid})`);
      } catch (error) {
        if (error instanceof AlreadyRunningError || error instanceof DaemonStartError) {
          process.stderr.write(`mercury: ${error.message}\n`);
          if (options.json) say(options, { ok: false, error: error.message }, "");
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
    .option("--json", "print one JSON document")
    .action(async (options: { timeout: string; json?: boolean }) => {
      const seconds = parseSeconds(options.timeout);
      const { stopDaemon } = await import("../../daemon/control.js");
      const result = await stopDaemon(paths(), seconds * 1000);
      if (!result) {
        say(options, { ok: true, running: false, stopped: false, pid: null }, "mercury is not running");
        return;
      }
      if (!result.stopped) {
        const problem =
          `the daemon (pid ${result.pid}) is still running after ${seconds}s; see \`mercury logs\`. ` +
          `To force it: kill -9 ${result.pid} (its running tasks are then resumed at the next start).`;
        process.stderr.write(`mercury: ${problem}\n`);
        if (options.json)
          say(options, { ok: false, running: true, stopped: false, pid: result.pid, error: problem }, "");
        process.exitCode = exitCodes.failure;
        return;
      }
      say(
        options,
        { ok: true, running: false, stopped: true, pid: result.pid },
        `mercury stopped (pid ${result.pid})`,
      );
    });

  program
    .command("restart")
    .description("stop the daemon (if running) and start it again")
    .option("--timeout <seconds>", "how long to wait for the old one to exit", "30")
    .option("--json", "print one JSON document")
    .action(async (options: { timeout: string; json?: boolean }, command: Command) => {
      const seconds = parseSeconds(options.timeout);
      const { startDetached, stopDaemon } = await import("../../daemon/control.js");
      const stopped = await stopDaemon(paths(), seconds * 1000);
      if (stopped && !stopped.stopped) {
        const problem = `the daemon (pid ${stopped.pid}) did not stop within ${seconds}s; not restarting`;
        process.stderr.write(`mercury: ${problem}\n`);
        if (options.json) say(options, { ok: false, running: true, pid: stopped.pid, error: problem }, "");
        process.exitCode = exitCodes.failure;
        return;
      }
      const { pid } = await startDetached({
        paths: paths(),
        env: process.env,
        globalArgs: globalArgs(command.optsWithGlobals<GlobalFlags>()),
      });
      say(
        options,
        { ok: true, running: true, pid, previousPid: stopped?.pid ?? null },
        `mercury restarted (pid ${pid})`,
      );
    });

  program
    .command("status")
    .description("is the daemon running: pid, uptime, channels, tasks, approvals, budget")
    .option("--json", "print one JSON document")
    .action(async (options: { json?: boolean }) => {
      const { readLiveLock } = await import("../../daemon/lock.js");
      const home = paths();
      // No live lock holder means no daemon: answer without loading the socket protocol.
      const holder = readLiveLock(home.lock);
      const client = holder
        ? await (await import("../../daemon/client.js")).DaemonClient.tryConnect(home.socket)
        : null;
      if (!client) {
        const message = holder
          ? `the daemon (pid ${holder.pid}) holds the lock but does not answer on ${home.socket}; see \`mercury logs\``
          : "mercury is not running (start it with `mercury start`)";
        const { detectSandbox } = await import("../../sandbox/detect.js");
        const sandbox = detectSandbox();
        if (options.json)
          process.stdout.write(
            `${JSON.stringify({ running: false, pid: holder?.pid ?? null, message, sandbox })}\n`,
          );
        else {
          const { describeSandbox } = await import("../../sandbox/describe.js");
          process.stdout.write(`${message}\nsandbox: ${describeSandbox(sandbox)}\n`);
        }
        process.exitCode = exitCodes.failure;
        return;
      }
      try {
        const status = await client.request({ type: "status" });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(status)}\n`);
          return;
        }
        const { formatStatus } = await import("./daemon-status.js");
        process.stdout.write(formatStatus(status));
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
      const count = wholeNumber(options.lines, 0, 1_000_000);
      if (count === null)
        throw new ConfigError(`-n "${options.lines}": expected a whole number of lines (0 or more).`);
      const { daemonLogPath, followLog, tailLines } = await import("../../daemon/control.js");
      const path = daemonLogPath(paths());
      const { existsSync, statSync } = await import("node:fs");
      const printedUpTo = existsSync(path) ? statSync(path).size : 0;
      // Silence would read as "nothing happened" or as a broken command; stdout stays empty for scripts.
      if (!existsSync(path))
        process.stderr.write(
          options.follow
            ? `mercury: no daemon log yet (${path}); waiting for its first line (Ctrl+C to stop). \`mercury start\` runs the daemon, which writes it.\n`
            : `mercury: no daemon log yet (${path}); \`mercury start\` runs the daemon, which writes it.\n`,
        );
      else if (options.follow && printedUpTo === 0)
        process.stderr.write(`mercury: ${path} is empty; waiting for its first line (Ctrl+C to stop).\n`);
      const { formatLogLine, lineFormatter } = await import("../../daemon/log-format.js");
      const colors = stdoutColors();
      const format = (line: string) => (options.json ? line : formatLogLine(line, colors));
      const lines = tailLines(path, count, printedUpTo);
      if (lines.length > 0) process.stdout.write(`${lines.map(format).join("\n")}\n`);
      if (!options.follow) return;
      const controller = new AbortController();
      process.once("SIGINT", () => controller.abort());
      process.once("SIGTERM", () => controller.abort());
      // `mercury logs -f | head -3`: once the reader has gone, following would write nowhere forever.
      const { onOutputClosed } = await import("../closed-output.js");
      onOutputClosed(() => controller.abort());
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

/** One JSON document with --json (every command that reports takes it), the line otherwise. */
function say(options: { json?: boolean }, document: Record<string, unknown>, line: string): void {
  process.stdout.write(options.json ? `${JSON.stringify(document)}\n` : `${line}\n`);
}

function parseSeconds(raw: string): number {
  const seconds = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!(seconds > 0 && seconds <= 3600))
    throw new ConfigError(`--timeout "${raw}": expected seconds between 1 and 3600.`);
  return seconds;
}

/** A plain number check: these commands must start without loading zod (see DECISIONS 2026-12-01). */
function wholeNumber(raw: string, min: number, max: number): number | null {
  const value = raw.trim() === "" ? Number.NaN : Number(raw);
  return Number.isInteger(value) && value >= min && value <= max ? value : null;
}
