import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { HomePaths } from "../config/paths.js";
import { AlreadyRunningError, isAlive, type LockInfo, readLiveLock } from "./lock.js";
import { daemonLogName, logMaxBytes, rotateIfLarge } from "./log-rotation.js";

export function daemonLogPath(paths: HomePaths): string {
  return join(paths.logs, daemonLogName);
}

export class DaemonStartError extends Error {
  override name = "DaemonStartError";
}

/**
 * `mercury start`: spawns this same program detached as `daemon run`, its output appended to
 * logs/daemon.log (rotated first when large), and waits until it answers on its socket.
 */
export async function startDetached(options: {
  paths: HomePaths;
  env: NodeJS.ProcessEnv;
  /** Global flags to pass on (--provider, --model, --base-url). */
  globalArgs: string[];
  timeoutMs?: number;
}): Promise<{ pid: number }> {
  const { paths } = options;
  const live = readLiveLock(paths.lock);
  if (live) throw new AlreadyRunningError(live.pid);
  mkdirSync(paths.logs, { recursive: true });
  const logPath = daemonLogPath(paths);
  rotateIfLarge(logPath, logMaxBytes(options.env));
  const cli = process.argv[1];
  if (!cli) throw new DaemonStartError("cannot tell which script is running (process.argv[1] is empty)");
  const fd = openSync(logPath, "a", 0o600);
  const startOffset = statSync(logPath).size;
  let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(process.execPath, [...process.execArgv, cli, ...options.globalArgs, "daemon", "run"], {
      detached: true,
      stdio: ["ignore", fd, fd],
      env: options.env,
      cwd: paths.home,
    });
  } finally {
    closeSync(fd);
  }
  child.on("exit", (code, signal) => {
    exited = { code, signal };
  });
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new DaemonStartError("the daemon process could not be spawned");
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  while (Date.now() < deadline) {
    if (exited) {
      const { code, signal } = exited;
      throw new DaemonStartError(
        `the daemon exited during start (${signal ?? `code ${code}`}):\n${logSince(logPath, startOffset) || "(nothing in the log)"}\nSee ${logPath}.`,
      );
    }
    const holder = readLiveLock(paths.lock);
    if (holder?.pid === pid && existsSync(paths.socket)) {
      // Loaded here, not at the top: `stop` and `logs` use this module and must not pay for the protocol.
      const { DaemonClient, DaemonUnavailableError } = await import("./client.js");
      const client = await DaemonClient.tryConnect(paths.socket, 1000);
      if (client) {
        try {
          await client.request({ type: "status" });
          return { pid };
        } catch (error) {
          // The socket answers before the rest of start-up has run; a daemon whose start then fails
          // closes it. Keep waiting: the exit is seen on the next turn and reported with its log.
          if (!(error instanceof DaemonUnavailableError)) throw error;
        } finally {
          client.close();
        }
      }
    }
    // Short: the wait is part of what `mercury start` costs, and a look at the lock file is cheap.
    await sleep(20);
  }
  throw new DaemonStartError(
    `the daemon (pid ${pid}) did not answer on ${paths.socket} within ${options.timeoutMs ?? 20_000} ms; see ${logPath}`,
  );
}

/**
 * `mercury stop`: SIGTERM (the daemon cancels running tasks in the ledger and flushes state), then
 * waits for the process to exit. Null when nothing was running.
 */
export async function stopDaemon(
  paths: HomePaths,
  timeoutMs = 30_000,
): Promise<{ pid: number; stopped: boolean } | null> {
  const holder: LockInfo | null = readLiveLock(paths.lock);
  if (!holder) return null;
  process.kill(holder.pid, "SIGTERM");
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(holder.pid)) return { pid: holder.pid, stopped: true };
    await sleep(100);
  }
  return { pid: holder.pid, stopped: false };
}

/** The last `count` lines of the file's first `upToBytes` bytes (all of it by default). */
export function tailLines(path: string, count: number, upToBytes?: number): string[] {
  if (!existsSync(path)) return [];
  const content = readFileSync(path);
  const lines = content
    .subarray(0, upToBytes ?? content.length)
    .toString("utf8")
    .split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return count <= 0 ? [] : lines.slice(-count);
}

/** How often `logs -f` looks for new lines (what `tail -f` does without inotify). */
const followIntervalMs = 250;

/** Follows a log like `tail -f`, surviving copy-truncate rotation; resolves when the signal aborts. */
export function followLog(
  path: string,
  write: (text: string) => void,
  signal: AbortSignal,
  fromOffset?: number,
): Promise<void> {
  // Start where the printed tail ended, so a line written in between is not lost.
  let offset = fromOffset ?? (existsSync(path) ? statSync(path).size : 0);
  const read = () => {
    // A log renamed away between two ticks is simply not there yet: the next tick sees the new one.
    const size = statSync(path, { throwIfNoEntry: false })?.size;
    if (size === undefined) return;
    if (size < offset) offset = 0;
    if (size === offset) return;
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(size - offset);
      readSync(fd, buffer, 0, buffer.length, offset);
      offset = size;
      write(buffer.toString("utf8"));
    } finally {
      closeSync(fd);
    }
  };
  return new Promise((resolve) => {
    // Each tick compares the file's size with what was printed. Not fs.watchFile: it reports changes
    // against a first stat taken later on the thread pool, so a line appended before that stat (a
    // loaded machine) was never reported and `logs -f` stayed silent until the next write.
    const timer = setInterval(read, followIntervalMs);
    read();
    signal.addEventListener(
      "abort",
      () => {
        clearInterval(timer);
        resolve();
      },
      { once: true },
    );
  });
}

function logSince(path: string, offset: number): string {
  if (!existsSync(path)) return "";
  return readFileSync(path, "utf8").slice(offset).trim().split("\n").slice(-20).join("\n");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
