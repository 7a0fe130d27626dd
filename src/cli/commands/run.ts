import type { Command } from "commander";
import type { GlobalFlags } from "../flags.js";

export interface RunOptions extends GlobalFlags {
  json?: boolean;
  cwd?: string;
  session?: string;
  yes?: boolean;
  acceptCheckChanges?: boolean;
  continue?: boolean;
  output?: string;
}

export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .description("run one task non-interactively and report how it ended")
    .argument(
      "<task>",
      'what to do, in words; "-" reads it from stdin (piped input is otherwise appended to it)',
    )
    .option("--json", "print one JSON document with the outcome")
    .option(
      "--output <format>",
      "text (default), json, or stream-json (every event as a JSON line, then the result)",
    )
    .option("--continue", "continue the latest terminal session")
    .option("--cwd <dir>", "working directory for the task (default: current directory)")
    .option("--session <id>", "continue this session (its transcript is the context)")
    .option(
      "--yes",
      "approve, for this run, what the OS sandbox contains (commands and writes inside the workspace); never a deny, network, or anything outside the workspace",
    )
    .option(
      "--accept-check-changes",
      "approve the changes this task made to its own checks (test scripts, runner config, existing tests); --yes does not",
    )
    .action(async (task: string, options: RunOptions, command: Command) => {
      const flags = { ...command.optsWithGlobals<GlobalFlags>(), ...options };
      const { runTask } = await import("./run-action.js");
      try {
        process.exitCode = await runTask(task, flags);
      } catch (error) {
        const format = machineFormat(flags);
        if (format === null) throw error;
        // A script asked for JSON: it gets the document even when the run could not start.
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
        process.exitCode = code;
      }
    });
}

/** The machine-readable format asked for, if any (a contradictory request still counts as one). */
function machineFormat(options: RunOptions): "json" | "stream-json" | null {
  if (options.output === "stream-json") return "stream-json";
  if (options.json || options.output === "json") return "json";
  return null;
}
