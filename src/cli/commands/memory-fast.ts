import {
  ADD_OPTIONS,
  addMemory,
  COMMON_OPTIONS,
  type MemoryRun,
  type OptionSpec,
  runMemoryCommand,
  SEARCH_OPTIONS,
  searchMemories,
} from "./memory-actions.js";

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

interface Option {
  long: string;
  key: string;
  takesValue: boolean;
}

function optionOf(spec: OptionSpec): Option {
  const [long = "", value] = spec.flags.split(" ");
  // commander's attribute name: "--as-of" is `asOf`.
  const key = long.slice(2).replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return { long, key, takesValue: value !== undefined };
}

/** Options and words of a plain command line, or null when commander must parse it. */
export function parsePlain(
  args: readonly string[],
  specs: readonly OptionSpec[],
): { options: Record<string, string | boolean>; words: string[] } | null {
  const known = new Map(specs.map((spec) => [optionOf(spec).long, optionOf(spec)]));
  const options: Record<string, string | boolean> = {};
  for (const spec of specs) {
    if (spec.defaultValue !== undefined) options[optionOf(spec).key] = spec.defaultValue;
  }
  const seen = new Set<string>();
  const words: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const argument = args[index] as string;
    if (!argument.startsWith("-")) {
      words.push(argument);
      continue;
    }
    if (!argument.startsWith("--") || argument === "--") return null;
    const equals = argument.indexOf("=");
    const long = equals < 0 ? argument : argument.slice(0, equals);
    const option = known.get(long);
    if (!option || seen.has(long)) return null;
    seen.add(long);
    if (!option.takesValue) {
      if (equals >= 0) return null;
      options[option.key] = true;
      continue;
    }
    const value = equals >= 0 ? argument.slice(equals + 1) : args[++index];
    if (value === undefined || value.startsWith("-")) return null;
    options[option.key] = value;
  }
  return words.length > 0 ? { options, words } : null;
}
