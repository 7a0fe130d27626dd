import { Command, CommanderError } from "commander";
import { exitCodes } from "./exit-codes.js";
import { commandGroupOf, registerExtensionCommands } from "./extensions.js";
import { GLOBAL_OPTIONS } from "./flags.js";
import { describeError, reportError } from "./report-error.js";
import { version } from "./version.js";

export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command();
  program
    .name("mercury")
    .description("Mercury: a personal AI agent that runs on your machine.")
    .version(version, "-V, --version");
  for (const spec of GLOBAL_OPTIONS) program.option(spec.flags, spec.description);
  program.showHelpAfterError().exitOverride();
  // A command of a group (`mercury memory …`) needs none of the core commands: not even their
  // declarations are loaded (the memory commands' start-up budget, BENCHMARKS.md issue 11).
  if (commandGroupOf(argv) === null) (await import("./core-commands.js")).registerCoreCommands(program);
  await registerExtensionCommands(program, argv);
  return program;
}

/** Runs the CLI and returns the exit code; every error is printed with what to do about it. */
export async function main(argv: string[]): Promise<number> {
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : exitCodes.success;
  } catch (error) {
    // `mercury run --json` with a command line commander refused still prints its JSON document.
    if (error instanceof CommanderError && error.exitCode !== 0) {
      const { reportRunUsageError } = await import("./commands/run.js");
      const code = await reportRunUsageError(argv.slice(2), error);
      if (code !== null) return code;
    }
    const code = reportError(error);
    jsonDocumentForStartError(argv.slice(2), error, code);
    return code;
  }
}

/**
 * The contract: a command given `--json` prints one JSON document. A command that could not start
 * (an invalid config.yaml, a damaged database: a usage-class error with a message) has printed none;
 * it gets `{ok: false, error, exitCode}`. `run` and `memory` print their own documents (run.ts,
 * memory-actions.ts) and are left alone, as is a command line commander refused.
 */
function jsonDocumentForStartError(args: readonly string[], error: unknown, code: number): void {
  if (error instanceof CommanderError || code !== exitCodes.usage) return;
  const end = args.indexOf("--");
  if (!(end === -1 ? args : args.slice(0, end)).includes("--json")) return;
  const first = args.find((arg) => !arg.startsWith("-"));
  if (first === "run" || first === "memory") return;
  const { message } = describeError(error);
  if (message === null) return;
  process.stdout.write(`${JSON.stringify({ ok: false, error: message, exitCode: code })}\n`);
}
