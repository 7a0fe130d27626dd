import { homedir } from "node:os";
import { z } from "zod";
import { detectSandbox } from "../sandbox/detect.js";
import { isSandboxError } from "../sandbox/errors.js";
import { networkPatternFor } from "../sandbox/network-grants.js";
import { type ProcessCgroup, processCgroup } from "../sandbox/process-cgroup.js";
import {
  defaultSandboxLimits,
  type Launch,
  type SandboxLimits,
  type SandboxStatus,
} from "../sandbox/types.js";
import { workspaceRefusal } from "../sandbox/workspace.js";
import { absolutePath } from "./authorize-path.js";
import { type CommandRun, runInProcessGroup, scrubbedEnv } from "./process-group.js";
import type { ToolDefinition } from "./types.js";

export interface RunCommandOptions {
  /** Default 120 s. */
  defaultTimeoutMs?: number;
  /** The most a call may ask for; default 10 min. */
  maxTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL; default 2 s. */
  killGraceMs?: number;
  /** Environment for commands; default: this process's environment without secret-looking variables. */
  env?: NodeJS.ProcessEnv;
  /** Combined output above this stops the command; default 64 MiB. */
  outputLimitBytes?: number;
  sandbox?: RunCommandSandboxOptions;
}

export interface RunCommandSandboxOptions {
  /** Default: detectSandbox() (cached). */
  status?: () => SandboxStatus;
  limits?: SandboxLimits;
  /** The user's home folder; default $HOME. */
  userHome?: string;
  /**
   * With no sandbox on this machine: true refuses every command; false (default) runs the command
   * the policy approved knowing there is none (it then asks for everything not provably read-only)
   * and says in the result that it ran uncontained.
   */
  require?: boolean;
  /**
   * The user's opt-in (config `sandbox.unfilteredNetwork`): with no network filter on this machine,
   * a command granted the network gets the host's whole network instead of being refused.
   */
  allowUnfilteredNetwork?: boolean;
  /**
   * Config `sandbox.networkCommands`: commands that get the network once allowed to run, without a
   * person granting it each time (network-grants.ts says what matches).
   */
  networkCommands?: readonly string[];
}

const inputSchema = z.object({
  command: z.string().min(1).describe("A shell command, run with /bin/sh -c."),
  cwd: z
    .string()
    .min(1)
    .optional()
    .describe("Directory to run in; defaults to the task's working directory."),
  timeoutMs: z.number().int().min(1).optional().describe("Time limit in milliseconds (default 120000)."),
});

export type RunCommandInput = z.infer<typeof inputSchema>;

export function createRunCommandTool(options: RunCommandOptions = {}): ToolDefinition<RunCommandInput> {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 120_000;
  const maxTimeoutMs = options.maxTimeoutMs ?? 600_000;
  const killGraceMs = options.killGraceMs ?? 2_000;
  const outputLimitBytes = options.outputLimitBytes ?? 64 * 1024 * 1024;
  const sandboxStatus = options.sandbox?.status ?? (() => detectSandbox());
  return {
    name: "run_command",
    description:
      `Run a shell command (/bin/sh -c) and return its exit code, signal, duration and combined output. ` +
      `Time limit ${defaultTimeoutMs} ms by default, at most ${maxTimeoutMs} ms via timeoutMs; on timeout the ` +
      "command and everything it started are killed. Output over about 30000 bytes keeps the beginning and the " +
      "end; redirect to a file and use read_file to see all of it. Background processes are stopped when the " +
      "command exits. It runs in an OS sandbox: only the task's working directory and /tmp (private, emptied " +
      "afterwards) are writable, secret files and Mercury's own files are hidden, other processes are invisible, " +
      "and there is no network unless the approval or the user's configuration granted it; on Linux a granted network reaches " +
      "the public internet only (never this machine, loopback, private, LAN or cloud metadata addresses). " +
      "Secret environment variables are not passed.",
    inputSchema,
    mutating: true,
    async execute(input, context) {
      const timeoutMs = input.timeoutMs ?? defaultTimeoutMs;
      if (timeoutMs > maxTimeoutMs) {
        return {
          ok: false,
          error: `timeoutMs ${timeoutMs} is above the limit of ${maxTimeoutMs} ms. Ask for at most ${maxTimeoutMs}, or split the work.`,
        };
      }
      const cwd = input.cwd ? absolutePath(input.cwd, context.cwd) : context.cwd;
      const decision = await context.authorize({ kind: "command", command: input.command, cwd });
      if (!decision.allowed) {
        return {
          ok: false,
          error: `Permission denied: the command was refused (${decision.rule}): ${decision.reason}`,
        };
      }
      const userHome = options.sandbox?.userHome ?? homedir();
      const refusal = workspaceRefusal(context.cwd, userHome, context.home);
      if (refusal) return { ok: false, error: `Not run: ${refusal}` };
      const status = sandboxStatus();
      // Network: granted by a person with this approval, or by the user's configuration. An
      // approval by --yes alone carries no network (the authorizer never sets it for allow-all).
      const configured = networkPatternFor(input.command, options.sandbox?.networkCommands ?? []);
      const network = decision.network === true || configured !== null;
      let launch: Launch | undefined;
      let sandboxLine: string;
      if (status.available) {
        // The launch builders (bubblewrap, seatbelt, masks, limits) load with the first command.
        const { sandboxLaunch } = await import("../sandbox/wrap.js");
        try {
          launch = sandboxLaunch(
            input.command,
            {
              workspace: context.cwd,
              cwd,
              userHome,
              mercuryHome: context.home,
              network,
              ...(options.sandbox?.allowUnfilteredNetwork ? { allowUnfilteredNetwork: true } : {}),
              limits: {
                ...(options.sandbox?.limits ?? defaultSandboxLimits),
                // A backstop a little past Mercury's own time limit (see limits.ts).
                ...(status.kind === "bubblewrap"
                  ? { wallClockSeconds: Math.ceil((timeoutMs + killGraceMs) / 1000) + 5 }
                  : {}),
              },
            },
            status,
          );
        } catch (error) {
          if (isSandboxError(error))
            return { ok: false, error: `Not run (sandbox ${error.kind}): ${error.message}` };
          throw error;
        }
        const grantedBy = decision.network === true ? "" : `, by sandbox.networkCommands "${configured}"`;
        sandboxLine = `sandbox: ${status.kind} (${network ? `${networkLine(status)}${grantedBy}` : "no network"})`;
      } else if (options.sandbox?.require) {
        return {
          ok: false,
          error: `Not run (sandbox unavailable): ${status.reason}. Fix: ${status.fix}`,
        };
      } else {
        sandboxLine = `sandbox: NONE, the command ran without OS containment (${status.reason}; fix: ${status.fix})`;
      }
      // Root is exempt from RLIMIT_NPROC: its commands get a pids cgroup where one can be made.
      let cgroup: ProcessCgroup | null = null;
      if (launch && status.available && status.kind === "bubblewrap") {
        try {
          cgroup = processCgroup((options.sandbox?.limits ?? defaultSandboxLimits).processes);
        } catch (error) {
          return { ok: false, error: `Not run (sandbox refused): ${String(error)}` };
        }
        if (cgroup) launch = cgroup.wrap(launch);
      }
      let run: CommandRun;
      try {
        run = await runInProcessGroup(input.command, {
          cwd,
          timeoutMs,
          killGraceMs,
          signal: context.signal,
          env: { ...(options.env ?? scrubbedEnv()), ...(launch ? { TMPDIR: "/tmp" } : {}) },
          onOutput: (chunk) => context.reportActivity(chunk),
          outputLimitBytes,
          ...(launch ? { launch } : {}),
        });
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      } finally {
        const leftover = await cgroup?.release();
        if (leftover) process.emitWarning(`mercury: ${leftover}`);
      }
      const report = formatRun(run, timeoutMs, sandboxLine);
      if (run.limitExceeded === "output")
        return {
          ok: false,
          error: `Stopped: the output passed the limit of ${outputLimitBytes} bytes.\n${report}`,
        };
      if (run.aborted)
        return { ok: false, error: `Cancelled: the task was aborted; the command was stopped.\n${report}` };
      if (run.timedOut) return { ok: false, error: report };
      return run.exitCode === 0 ? { ok: true, output: report } : { ok: false, error: report };
    },
  };
}

function networkLine(status: SandboxStatus): string {
  if (status.available && status.kind === "bubblewrap" && status.network?.available)
    return "network granted, filtered: no loopback, private or link-local addresses";
  if (status.available && status.kind === "sandbox-exec") return "network granted: loopback refused";
  return "network granted: the host's whole network (sandbox.unfilteredNetwork is on)";
}

/** First line is always `exit code: N` so callers (e.g. verification records) can read it back. */
export function formatRun(run: CommandRun, timeoutMs: number, sandboxLine?: string): string {
  const lines = [
    `exit code: ${run.exitCode === null ? "none" : run.exitCode}`,
    `signal: ${run.signal ?? "none"}`,
    `duration: ${run.durationMs} ms`,
  ];
  if (sandboxLine) lines.push(sandboxLine);
  if (run.timedOut)
    lines.push(`timed out after ${timeoutMs} ms: the command and all its child processes were killed`);
  if (run.stoppedLeftovers) {
    lines.push("background processes still holding the output after the command exited were stopped");
  }
  for (const failure of run.killErrors) lines.push(`could not stop every process: ${failure}`);
  const output = run.output.trimEnd();
  lines.push(output === "" ? "output: (none)" : `output (${run.outputBytes} bytes):\n${output}`);
  return lines.join("\n");
}

export function parseExitCode(report: string): number | null {
  const match = /^exit code: (-?\d+)/.exec(report);
  return match?.[1] === undefined ? null : Number(match[1]);
}
