import { CommanderError } from "commander";
import { ConfigError } from "../config/errors.js";
import { Redactor } from "../config/secrets.js";
import { DatabaseVersionError } from "../storage/errors.js";
import { describeStateError } from "../storage/state-errors.js";
import { exitCodes } from "./exit-codes.js";
import { UserCancel } from "./user-cancel.js";

/**
 * What an error that ends a command means for the person: the line to print (null when commander
 * has printed it already) and the exit code. Secrets are redacted.
 */
export function describeError(error: unknown): { message: string | null; code: number } {
  const redactor = new Redactor(process.env);
  if (error instanceof CommanderError) {
    // Commander has already printed the problem (or the help / version text).
    if (
      error.code === "commander.helpDisplayed" ||
      error.code === "commander.version" ||
      error.exitCode === 0
    ) {
      return { message: null, code: exitCodes.success };
    }
    return { message: null, code: exitCodes.usage };
  }
  // The command told the person it was cancelled; printing the error again would say it twice.
  if (error instanceof UserCancel) return { message: null, code: exitCodes.failure };
  if (error instanceof ConfigError || error instanceof DatabaseVersionError) {
    return { message: redactor.redact(error.message), code: exitCodes.usage };
  }
  const state = describeStateError(error);
  if (state !== null) return { message: redactor.redact(state), code: exitCodes.usage };
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return {
    message: `unexpected error: ${redactor.redact(detail)}\nPlease report this with \`mercury doctor\` output.`,
    code: exitCodes.failure,
  };
}

/** Prints the error once, with what to do about it, and returns the exit code. */
export function reportError(error: unknown): number {
  const { message, code } = describeError(error);
  if (message !== null) process.stderr.write(`mercury: ${message}\n`);
  return code;
}
