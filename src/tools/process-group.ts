import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { StringDecoder } from "node:string_decoder";
import type { Launch } from "../sandbox/types.js";
import { HeadTailBuffer } from "./output-limits.js";
import { recordGroupEnded, recordGroupStarted } from "./process-records.js";

export interface RunOptions {
  cwd: string;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL when stopping the group. */
  killGraceMs: number;
  signal: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Every decoded chunk of stdout/stderr as it arrives. */
  onOutput?: (chunk: string) => void;
  headBytes?: number;
  tailBytes?: number;
  /** How long to wait for the output pipes after the shell exits before stopping leftovers that hold them. */
  leftoverGraceMs?: number;
  /** The program to start instead of `/bin/sh -c command` (the OS sandbox wrapping that shell). */
  launch?: Launch;
  /** Output (stdout+stderr) above this many bytes stops the command; default: no limit. */
  outputLimitBytes?: number;
}

export interface CommandRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  /** Combined stdout+stderr, head and tail kept when large. */
  output: string;
  outputBytes: number;
  timedOut: boolean;
  aborted: boolean;
  /** Background processes of the command still held its output open after it exited and were stopped. */
  stoppedLeftovers: boolean;
  /** Signals that could not be delivered while stopping the command (processes may remain). */
  killErrors: string[];
  /** The limit the command was stopped for, when it was (the time limit also sets `timedOut`). */
  limitExceeded?: "time" | "output";
}

export const OUTPUT_HINT =
  "Re-run with the output redirected to a file and read it with read_file (startLine/endLine), or filter it with grep";

/** Names of environment variables that carry secrets; commands the model runs never see them. */
const SECRET_ENV = /(API_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY)/i;

export function scrubbedEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (!SECRET_ENV.test(name)) out[name] = value;
  return out;
}

/** Leaders of the groups still running, so that Mercury exiting does not leave them behind. */
const runningGroups = new Set<number>();
let exitHookInstalled = false;

/** Kills every command group still running (SIGKILL: at exit there is no time for a grace period). */
export function stopAllCommands(): number {
  let stopped = 0;
  for (const pid of runningGroups) {
    try {
      if (killProcessGroup(pid, "SIGKILL")) stopped++;
    } catch (error) {
      // Runs at process exit, where a throw would hide the other groups; stderr is all there is.
      console.error(`mercury: could not stop command process group ${pid}: ${String(error)}`);
    }
  }
  runningGroups.clear();
  return stopped;
}

function trackGroup(pid: number): void {
  runningGroups.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", stopAllCommands);
  }
}

/** Signals every process in the group. A group that is already gone (ESRCH) is the goal, not an error. */
export function killProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "ESRCH")
      return false;
    throw error;
  }
}

/**
 * Runs `/bin/sh -c command` as the leader of a new process group, so that stopping it (timeout or
 * abort) reaches every grandchild, not just the shell. Fully asynchronous: the event loop keeps turning.
 */
export async function runInProcessGroup(command: string, options: RunOptions): Promise<CommandRun> {
  const cwdInfo = await stat(options.cwd).catch((error: unknown) => {
    throw new Error(`The working directory ${options.cwd} cannot be used: ${String(error)}`);
  });
  if (!cwdInfo.isDirectory()) throw new Error(`The working directory ${options.cwd} is not a directory.`);
  if (options.signal.aborted) {
    return {
      exitCode: null,
      signal: null,
      durationMs: 0,
      output: "",
      outputBytes: 0,
      timedOut: false,
      aborted: true,
      stoppedLeftovers: false,
      killErrors: [],
    };
  }

  const started = performance.now();
  const buffer = new HeadTailBuffer(options.headBytes ?? 12_000, options.tailBytes ?? 18_000);
  const launch = options.launch ?? { file: "/bin/sh", args: ["-c", command] };
  const child = spawn(launch.file, launch.args, {
    cwd: options.cwd,
    env: options.env ?? scrubbedEnv(),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });

  return await new Promise<CommandRun>((resolvePromise, rejectPromise) => {
    let timedOut = false;
    let aborted = false;
    let limitExceeded: "time" | "output" | undefined;
    let stoppedLeftovers = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let leftoverTimer: NodeJS.Timeout | undefined;

    const killErrors: string[] = [];
    // Called from timers and listeners, where a throw would crash the process: failures go in the result.
    const signalGroup = (pid: number, signal: NodeJS.Signals): boolean => {
      try {
        return killProcessGroup(pid, signal);
      } catch (error) {
        const message = `${signal} to process group ${pid} failed: ${error instanceof Error ? error.message : String(error)}`;
        killErrors.push(message);
        process.emitWarning(message);
        return false;
      }
    };
    const stopGroup = () => {
      const pid = child.pid;
      if (pid === undefined) return;
      if (!signalGroup(pid, "SIGTERM")) return;
      // Deliberately outlives the run: a member that ignores SIGTERM must still be killed.
      setTimeout(() => signalGroup(pid, "SIGKILL"), options.killGraceMs).unref();
    };

    const onAbort = () => {
      aborted = true;
      stopGroup();
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    const timeoutTimer = setTimeout(() => {
      timedOut = true;
      limitExceeded ??= "time";
      stopGroup();
    }, options.timeoutMs);

    for (const stream of [child.stdout, child.stderr]) {
      const decoder = new StringDecoder("utf8");
      stream.on("data", (chunk: Buffer) => {
        buffer.push(chunk);
        if (
          options.outputLimitBytes !== undefined &&
          buffer.totalBytes > options.outputLimitBytes &&
          !limitExceeded
        ) {
          limitExceeded = "output";
          stopGroup();
        }
        const text = decoder.write(chunk);
        if (text !== "") options.onOutput?.(text);
      });
    }

    if (child.pid !== undefined) {
      trackGroup(child.pid);
      recordGroupStarted(child.pid, command);
    }

    child.on("error", (error) => {
      cleanup();
      rejectPromise(new Error(`Could not start ${launch.file}: ${error.message}`));
    });

    child.on("exit", (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      // A background grandchild that inherited our pipes would keep "close" from ever firing.
      leftoverTimer = setTimeout(() => {
        stoppedLeftovers = true;
        stopGroup();
        child.stdout.destroy();
        child.stderr.destroy();
      }, options.leftoverGraceMs ?? 500);
    });

    child.on("close", (code, signal) => {
      cleanup();
      resolvePromise({
        exitCode: exitCode ?? code,
        signal: exitSignal ?? signal,
        durationMs: Math.round(performance.now() - started),
        output: buffer.text(OUTPUT_HINT),
        outputBytes: buffer.totalBytes,
        timedOut,
        aborted,
        stoppedLeftovers,
        killErrors,
        ...(limitExceeded ? { limitExceeded } : {}),
      });
    });

    function cleanup() {
      if (child.pid !== undefined) {
        runningGroups.delete(child.pid);
        recordGroupEnded(child.pid);
      }
      options.signal.removeEventListener("abort", onAbort);
      clearTimeout(timeoutTimer);
      if (leftoverTimer) clearTimeout(leftoverTimer);
    }
  });
}
