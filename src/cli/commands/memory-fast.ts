import { parsePlain } from "../plain-args.js";
import {
  ADD_OPTIONS,
  addMemory,
  COMMON_OPTIONS,
  type MemoryRun,
  runMemoryCommand,
  SEARCH_OPTIONS,
  searchMemories,
} from "./memory-actions.js";

export { parsePlain };

/**
 * `mercury memory add|search` without commander: the two memory commands scripts and people run
 * most start in about the time of `node` itself (BENCHMARKS.md, issue 11 memory latency), and
 * commander's loading is a tenth of that. Only plain command lines take this path — known long
 * options (`--limit 5`, `--limit=5`, `--json`) and words; anything else (help, a short or unknown
 * option, `--`, a word starting with "-", a repeated option, no words) returns null and the full
 * program parses it, with its errors and help. Options are read from the same tables commander is
 * given (memory-actions.ts), so the two cannot disagree on names or defaults.
 */
export async function runMemoryFast(args: readonly string[]): Promise<number | null> {
  const [group, name, ...rest] = args;
  if (group !== "memory") return null;
  const command =
    name === "add"
      ? { specs: ADD_OPTIONS, run: addMemory as MemoryRun<never, [string[]]> }
      : name === "search"
        ? { specs: SEARCH_OPTIONS, run: searchMemories as MemoryRun<never, [string[]]> }
        : null;
  if (!command) return null;
  const parsed = parsePlain(rest, [...COMMON_OPTIONS, ...command.specs]);
  if (!parsed) return null;
  const { openMemoryCoreForCli } = await import("../../app/memory-cli.js");
  const io = {
    stdout: (text: string) => process.stdout.write(text),
    stderr: (text: string) => process.stderr.write(text),
  };
  try {
    await runMemoryCommand(
      async () => (await openMemoryCoreForCli()).service,
      io,
      command.run,
      parsed.options as never,
      [parsed.words],
    );
  } catch (error) {
    // What the commands do not know is reported as the full program reports it.
    const { reportError } = await import("../report-error.js");
    return reportError(error);
  }
  return typeof process.exitCode === "number" ? process.exitCode : 0;
}
