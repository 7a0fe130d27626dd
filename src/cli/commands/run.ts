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
    return reportRunFailure(error, format);
  }
}

/** Prints the error (stderr) and, for a script, the run's failure document (stdout); returns the code. */
async function reportRunFailure(error: unknown, format: "json" | "stream-json"): Promise<number> {
  const { reportError, describeError } = await import("../report-error.js");
  const code = reportError(error);
  const document = {
    ...(format === "stream-json" ? { type: "result" } : {}),
    ok: false,
    outcome: "failed",
    isError: true,
    error: describeError(error).message ?? commandLineProblem(error),
    exitCode: code,
    taskId: null,
    sessionId: null,
  };
  process.stdout.write(`${JSON.stringify(document)}\n`);
  return code;
}

/** Commander's own wording ("error: unknown option '--x'") without its prefix, for the document. */
function commandLineProblem(error: unknown): string {
  const message = error instanceof Error ? error.message.replace(/^error:\s*/, "") : "";
  return message === "" ? "invalid command line" : `${message}; see \`mercury run --help\``;
}

/**
 * A `mercury run` command line commander refused (an unknown option, no task): when it asked for
 * JSON, the script still gets its one document, as for any run that cannot start. Null otherwise.
 */
export async function reportRunUsageError(args: readonly string[], error: unknown): Promise<number | null> {
  if (args.find((arg) => !arg.startsWith("-")) !== "run") return null;
  if (args.includes("--help") || args.includes("-h")) return null;
  const format = machineFormatOfArgs(args);
  if (format === null) return null;
  return reportRunFailure(error, format);
}

function machineFormatOfArgs(args: readonly string[]): "json" | "stream-json" | null {
  const end = args.indexOf("--");
  const options = end === -1 ? args : args.slice(0, end);
  const output = options.findIndex((arg) => arg === "--output");
  const value =
    output === -1 ? options.find((arg) => arg.startsWith("--output="))?.slice(9) : options[output + 1];
  if (value === "stream-json") return "stream-json";
  if (options.includes("--json") || value === "json") return "json";
  return null;
}

/** The machine-readable format asked for, if any (a contradictory request still counts as one). */
function machineFormat(options: RunOptions): "json" | "stream-json" | null {
  if (options.output === "stream-json") return "stream-json";
  if (options.json || options.output === "json") return "json";
  return null;
}
