/**
 * A plain command line read without commander, for the commands that start without it
 * (`memory add|search`, `run`): known long options (`--limit 5`, `--limit=5`, `--json`) and words.
 * Anything else — help, a short or unknown option, `--`, a word starting with "-", a repeated option
 * — gives null, and the full program parses the line with its errors and help. The option tables are
 * the ones commander is given, so the two cannot disagree on names or defaults.
 */
export interface PlainOptionSpec {
  /** commander's form: "--json", "--limit <n>". */
  flags: string;
  defaultValue?: string;
}

interface Option {
  long: string;
  key: string;
  takesValue: boolean;
}

function optionOf(spec: PlainOptionSpec): Option {
  const [long = "", value] = spec.flags.split(" ");
  // commander's attribute name: "--as-of" is `asOf`.
  const key = long.slice(2).replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return { long, key, takesValue: value !== undefined };
}

/** Options and words of a plain command line, or null when commander must parse it. */
export function parsePlain(
  args: readonly string[],
  specs: readonly PlainOptionSpec[],
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
