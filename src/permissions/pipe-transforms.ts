import type { Decode } from "./decoders.js";

/**
 * Programs in a pipe that pass their input on, or edit it in a way the engine can compute (pass 10):
 * `… | tee x.sh | sh` and `… | cat | sh` hand the shell what came before; `echo ~ | sed 's/^/rm -rf /' |
 * sh` builds `rm -rf /home/you` from a harmless-looking word. The output is computed and judged like
 * any script; a sed script the engine cannot follow gives unknown text (an opaque pipe into a shell).
 */
export function transformOf(program: string, args: string[]): Decode | null {
  const operands = args.filter((arg) => !arg.startsWith("-") || arg === "-");
  if (program === "tee") return (input) => input;
  if (program === "cat" && operands.every((operand) => operand === "-")) return (input) => input;
  if (program === "sed" || program === "gsed") return sedTransform(args);
  if (program === "awk" || program === "gawk" || program === "mawk" || program === "perl") return () => null;
  return null;
}

/** `sed 's/^/rm -rf /'`, `sed -e 's/x/y/g'`: only `s` commands with `/` or `|` delimiters. */
function sedTransform(args: string[]): Decode {
  const scripts: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "-e" || arg === "--expression") scripts.push(args[++index] ?? "");
    else if (arg.startsWith("--expression=")) scripts.push(arg.slice(13));
    else if (arg === "-E" || arg === "-r" || arg === "--regexp-extended" || arg === "-u") continue;
    else if (arg.startsWith("-")) return () => null;
    else if (scripts.length === 0) scripts.push(arg);
    else return () => null;
  }
  const steps = scripts.flatMap((script) => script.split(/\s*;\s*|\n/)).filter((step) => step !== "");
  const substitutions = steps.map(parseSubstitution);
  if (substitutions.some((step) => step === null)) return () => null;
  return (input) =>
    input
      .split("\n")
      .map((line) =>
        substitutions.reduce(
          (text, step) => (step ? text.replace(step.pattern, step.replacement) : text),
          line,
        ),
      )
      .join("\n");
}

function parseSubstitution(step: string): { pattern: RegExp; replacement: string } | null {
  const match = /^s([/|#,:])((?:\\.|(?!\1).)*)\1((?:\\.|(?!\1).)*)\1([gI]*)$/.exec(step);
  if (!match) return null;
  const [, delimiter, source = "", replacement = "", flags = ""] = match;
  try {
    const pattern = new RegExp(
      basicToJs(source.replaceAll(`\\${delimiter}`, delimiter as string)),
      flags.includes("g") ? "g" : "",
    );
    const js = replacement
      .replaceAll(`\\${delimiter}`, delimiter as string)
      .replace(/\$/g, "$$$$")
      .replace(/\\([1-9])/g, "$$$1")
      .replace(/(^|[^\\])&/g, "$1$$&")
      .replace(/\\&/g, "&")
      .replace(/\\n/g, "\n");
    return { pattern, replacement: js };
  } catch {
    // A pattern JavaScript cannot compile: the edited text is unknown.
    return null;
  }
}

/** A POSIX basic regular expression as a JavaScript one (groups, intervals, literal `+?|(){}`). */
function basicToJs(source: string): string {
  let out = "";
  for (let index = 0; index < source.length; index++) {
    const char = source[index] as string;
    if (char === "\\") {
      const next = source[index + 1] ?? "";
      index += 1;
      out += /[(){}|+?]/.test(next) ? next : `\\${next}`;
    } else out += /[(){}|+?]/.test(char) ? `\\${char}` : char;
  }
  return out;
}

/**
 * What `printf FORMAT ARGS…` prints: each `%s`/`%b`/`%d`/`%q` takes the next argument, and the format
 * is used again while arguments remain (`printf 'rm -rf %s\n' ~` prints `rm -rf /home/you`).
 */
export function printfOutput(args: string[]): string {
  const [format = "", ...values] = args;
  let out = "";
  let next = 0;
  do {
    out += format.replace(/%(%|[-+ #0]*\d*(?:\.\d+)?[sbdiqcuxXoeEfgG])/g, (_all, spec: string) =>
      spec === "%" ? "%" : (values[next++] ?? ""),
    );
  } while (next < values.length && /%[^%]/.test(format));
  return out.replace(/\\n/g, "\n").replace(/\\t/g, "\t");
}
