/**
 * Names a command binds to other commands and then uses (pass 10): `alias x='rm -rf'; x ~`,
 * `hash -p /bin/rm ls; ls -rf ~`, `f() { rm -rf "$1"; }; f ~`, `r=(rm -rf); "${r[@]}" ~`,
 * `set -- rm -rf; "$@" ~`. The walker judges each statement by its own words, so the later use looked
 * like an unknown program with a harmless word. Here the source is rewritten with every use replaced
 * by what it stands for (a function's body with its arguments in place of `$1`, `$@`) and judged again;
 * only hardline, secret and Mercury-state denials of that second look count. Null when nothing is bound.
 */

const name = String.raw`[A-Za-z_][\w.-]*`;
/** Where a word is a command name: the start, or after `;`, `&`, `|`, `(`, `{`, `then`, `do`, `else`, `!`. */
const commandStart = String.raw`(^|[;&|({\n]\s*|\b(?:then|do|else)\s+|!\s+)`;

export function rebindSource(source: string): string | null {
  if (!/\balias\s|\bhash\s+-p|\(\)\s*[{(]|\bfunction\s|=\(|\bset\s+--/.test(source)) return null;
  let out = source;
  const commands = new Map<string, string>();
  for (const match of source.matchAll(
    new RegExp(String.raw`\balias\s+(${name})=(?:'([^']*)'|"([^"]*)"|(\S+))`, "g"),
  ))
    commands.set(match[1] as string, match[2] ?? match[3] ?? match[4] ?? "");
  for (const match of source.matchAll(new RegExp(String.raw`\bhash\s+-p\s+(\S+)\s+(${name})`, "g")))
    commands.set(match[2] as string, match[1] as string);
  const functions = functionBodies(source);
  const arrays = new Map<string, string>();
  for (const match of source.matchAll(new RegExp(String.raw`\b(${name})=\(([^()]*)\)`, "g")))
    arrays.set(match[1] as string, (match[2] as string).trim());
  const positional = /\bset\s+--\s+([^;&|\n]*)/.exec(source)?.[1]?.trim();

  for (const [array, elements] of arrays)
    out = out.replace(new RegExp(String.raw`"?\$\{${escapeRegExp(array)}\[[@*]\]\}"?`, "g"), elements);
  if (positional !== undefined) out = withArguments(out, splitWords(positional));
  for (const [bound, text] of commands)
    out = out.replace(
      new RegExp(String.raw`${commandStart}${escapeRegExp(bound)}(?=\s|$|;)`, "g"),
      (_all, before: string) => `${before}${text}`,
    );
  for (const [bound, body] of functions)
    out = out.replace(
      new RegExp(
        String.raw`${commandStart}${escapeRegExp(bound)}((?:[ \t]+[^;&|\n(){}]*)?)(?=[;&|\n)]|$)`,
        "g",
      ),
      (_all, before: string, args: string) =>
        args.trim() === "" && !/\$/.test(body)
          ? `${before}${body}`
          : `${before}${withArguments(body, splitWords(args))}`,
    );
  return out === source ? null : out;
}

/**
 * Each function's body, read to its matching `}` (or `)` for `f() ( … )`) outside quotes, so bodies
 * holding blocks, `if`/`for`, `{}` or `${x}` are followed too (pass 11; the pass-10 pattern stopped at
 * the first brace). A body whose end is not found is left out.
 */
function functionBodies(source: string): Map<string, string> {
  const functions = new Map<string, string>();
  const head = new RegExp(
    String.raw`(?:\bfunction\s+(${name})\s*(?:\(\s*\))?|(${name})\s*\(\s*\))\s*([{(])`,
    "g",
  );
  for (const match of source.matchAll(head)) {
    const start = match.index + match[0].length;
    const brace = match[3] === "{";
    const end = matchingClose(source, start, brace ? "{" : "(", brace ? "}" : ")");
    if (end === null) continue;
    functions.set((match[1] ?? match[2]) as string, source.slice(start, end).trim().replace(/;\s*$/, ""));
  }
  return functions;
}

/** Where the bracket opened just before `from` closes, skipping quoted text and escaped characters. */
function matchingClose(text: string, from: number, open: string, close: string): number | null {
  let depth = 1;
  let quote: string | null = null;
  for (let index = from; index < text.length; index++) {
    const character = text[index];
    if (quote === "'") {
      if (character === "'") quote = null;
    } else if (character === "\\") index += 1;
    else if (quote === '"') {
      if (character === '"') quote = null;
    } else if (character === "'" || character === '"') quote = character;
    else if (character === open) depth += 1;
    else if (character === close) {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return null;
}

/** `"$@"`, `$*`, `"$1"`, `${2}` replaced by the words given (as written, so `~` still expands). */
function withArguments(text: string, args: string[]): string {
  return text
    .replace(/"?\$(?:\{[@*]\}|[@*])"?/g, args.join(" "))
    .replace(/"?\$(?:\{(\d)\}|(\d))"?/g, (_all, braced?: string, bare?: string) => {
      const index = Number(braced ?? bare);
      return index === 0 ? "$0" : (args[index - 1] ?? "");
    });
}

/** Words as written, split on blanks outside quotes (the quotes kept). */
function splitWords(text: string): string[] {
  return text.match(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g) ?? [];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
}
