import { Command, CommanderError } from "commander";
import { exitCodes } from "./exit-codes.js";
import { commandGroupOf, registerExtensionCommands } from "./extensions.js";
import { GLOBAL_OPTIONS } from "./flags.js";
import { watchJsonContract } from "./json-contract.js";
import { reportError } from "./report-error.js";
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
  const jsonContract = watchJsonContract(argv.slice(2));
  const code = await runProgram(argv);
  jsonContract?.finish(code);
  return code;
}

async function runProgram(argv: string[]): Promise<number> {
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
    // With --json, the failure document is printed by the JSON contract watch (json-contract.ts).
    return reportError(error);
  }
}
