import type { Command } from "commander";
import type { GlobalFlags } from "../flags.js";
import type { PlainOptionSpec } from "../plain-args.js";

export interface RunOptions extends GlobalFlags {
  json?: boolean;
  cwd?: string;
  session?: string;
  yes?: boolean;
  acceptCheckChanges?: boolean;
  continue?: boolean;
  output?: string;
}

interface RunOptionSpec extends PlainOptionSpec {
  description: string;
}

/** `run`'s options, in help order: declared to commander and read by the plain parser (run-fast.ts). */
export const RUN_OPTIONS: readonly RunOptionSpec[] = [
  { flags: "--json", description: "print one JSON document with the outcome" },
  {
    flags: "--output <format>",
    description: "text (default), json, or stream-json (every event as a JSON line, then the result)",
  },
  { flags: "--continue", description: "continue the latest terminal session" },
  { flags: "--cwd <dir>", description: "working directory for the task (default: current directory)" },
  { flags: "--session <id>", description: "continue this session (its transcript is the context)" },
  {
    flags: "--yes",
    description:
      "approve, for this run, what the OS sandbox contains (commands and writes inside the workspace); never a deny, network, or anything outside the workspace",
  },
  {
    flags: "--accept-check-changes",
    description:
      "approve the changes this task made to its own checks (test scripts, runner config, existing tests); --yes does not",
  },
];

export function registerRunCommand(program: Command): void {
  const command = program
    .command("run")
    .description("run one task non-interactively and report how it ended")
    .argument(
      "<task>",
      'what to do, in words; "-" reads it from stdin (piped input is otherwise appended to it)',
    );
  for (const spec of RUN_OPTIONS) command.option(spec.flags, spec.description);
  command.action(async (task: string, options: RunOptions, self: Command) => {
    process.exitCode = await runCommand(task, { ...self.optsWithGlobals<GlobalFlags>(), ...options });
  });
}

/**
 * `mercury run`, however its command line was read; returns the exit code. Errors are thrown to the
 * caller's reporter, except when a script asked for JSON: then it gets the document even when the
 * run could not start.
 */
export async function runCommand(task: string, flags: RunOptions): Promise<number> {
  const { runTask } = await import("./run-action.js");
  try {
    return await runTask(task, flags);
  } catch (error) {
    const format = machineFormat(flags);
    if (format === null) throw error;
    const { reportError, describeError } = await import("../report-error.js");
    const code = reportError(error);
    const document = {
      ...(format === "stream-json" ? { type: "result" } : {}),
      outcome: "failed",
      isError: true,
      error: describeError(error).message ?? "invalid command line",
      exitCode: code,
      taskId: null,
      sessionId: null,
    };
    process.stdout.write(`${JSON.stringify(document)}\n`);
    return code;
  }
}

/** The machine-readable format asked for, if any (a contradictory request still counts as one). */
function machineFormat(options: RunOptions): "json" | "stream-json" | null {
  if (options.output === "stream-json") return "stream-json";
  if (options.json || options.output === "json") return "json";
  return null;
}
