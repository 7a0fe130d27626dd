import { Command, CommanderError } from "commander";
import { ConfigError } from "../config/errors.js";
import { Redactor } from "../config/secrets.js";
import { DatabaseVersionError } from "../storage/errors.js";
import { describeStateError } from "../storage/state-errors.js";
import { exitCodes } from "./exit-codes.js";
import { commandGroupOf, registerExtensionCommands } from "./extensions.js";
import { version } from "./version.js";

export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command();
  program
    .name("mercury")
    .description("Mercury: a personal AI agent that runs on your machine.")
    .version(version, "-V, --version")
    .option(
      "--provider <name>",
      "provider for this run (openai, anthropic, deepseek, openrouter, ollama, openai-compatible)",
    )
    .option("--model <id>", "model for this run")
    .option("--base-url <url>", "base URL of the provider's API for this run")
    .showHelpAfterError()
    .exitOverride();
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
    return reportError(error);
  }
}

export function reportError(error: unknown): number {
  const redactor = new Redactor(process.env);
  if (error instanceof CommanderError) {
    // Commander has already printed the problem (or the help / version text).
    if (
      error.code === "commander.helpDisplayed" ||
      error.code === "commander.version" ||
      error.exitCode === 0
    ) {
      return exitCodes.success;
    }
    return exitCodes.usage;
  }
  if (error instanceof ConfigError || error instanceof DatabaseVersionError) {
    process.stderr.write(`mercury: ${redactor.redact(error.message)}\n`);
    return exitCodes.usage;
  }
  const state = describeStateError(error);
  if (state !== null) {
    process.stderr.write(`mercury: ${redactor.redact(state)}\n`);
    return exitCodes.usage;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(
    `mercury: unexpected error: ${redactor.redact(message)}\nPlease report this with \`mercury doctor\` output.\n`,
  );
  return exitCodes.failure;
}
