import { z } from "zod";
import type { SandboxLimits, SandboxStatus } from "../sandbox/types.js";
import type { CommandRun } from "./process-group.js";
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
      // The sandbox probe and launch, the process group and its records load with the first command
      // (run-command-exec.ts): a task that runs none never parses them.
      const { runCommandCall } = await import("./run-command-exec.js");
      return runCommandCall(input, context, {
        options,
        defaultTimeoutMs,
        maxTimeoutMs,
        killGraceMs,
        outputLimitBytes,
      });
    },
  };
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
