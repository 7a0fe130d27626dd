import { GLOBAL_OPTIONS } from "../flags.js";
import { parsePlain } from "../plain-args.js";
import { RUN_OPTIONS, type RunOptions, runCommand } from "./run.js";

/**
 * `mercury run <task>` without commander: the run's first model request is what it waits on, and
 * loading and building the command-line program (commander, every command's declaration) costs more
 * CPU than anything else in front of it after the AI SDK. Only a plain command line takes this path
 * — `run`, exactly one task word, and known long options from the same tables commander is given
 * (run.ts, flags.ts); anything else (help, `-` for stdin, a short or unknown option, a second word)
 * returns null and the full program parses it, with its errors and help.
 */
export async function runFast(args: readonly string[]): Promise<number | null> {
  const [name, ...rest] = args;
  if (name !== "run") return null;
  const parsed = parsePlain(rest, [...GLOBAL_OPTIONS, ...RUN_OPTIONS]);
  const task = parsed?.words.length === 1 ? parsed.words[0] : undefined;
  if (!parsed || task === undefined) return null;
  try {
    return await runCommand(task, parsed.options as RunOptions);
  } catch (error) {
    // Reported as the full program reports what a command throws.
    const { reportError } = await import("../report-error.js");
    return reportError(error);
  }
}
