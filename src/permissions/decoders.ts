import type { PermissionContext } from "./context.js";
import { transformOf } from "./pipe-transforms.js";
import type { Stmt } from "./shell-ast.js";
import { evaluateWord } from "./shell-words.js";
import { unwrap } from "./wrappers.js";

/**
 * Programs that turn their input into other text: `base64 -d`, `base32 -d`, `xxd -r -p`, `rev`,
 * `openssl base64 -d`. Piped into a shell they hide the command (`echo cm0gLXJmIH4K | base64 -d | sh`
 * is `rm -rf ~`). When the input is known the output is computed and judged like any script; when it
 * is not, the shell runs text nobody can read before it runs (opaque, never `--yes`).
 */
export type Decode = (input: string) => string | null;

function words(stmt: Stmt, context: PermissionContext): string[] | null {
  if (stmt.command?.type !== "call" || stmt.command.args.length === 0) return null;
  const evaluated = stmt.command.args.map((word) => evaluateWord(word, context));
  const invocations = unwrap(evaluated).invocations;
  const last = invocations[invocations.length - 1];
  return last ? last.words.map((word) => word.text) : null;
}

const decodeFlag = (args: string[]) => args.some((arg) => arg === "--decode" || /^-[A-Za-z]*[dD]$/.test(arg));

/** How the statement's program transforms its input, or null when it is no decoder. */
export function decoderOf(stmt: Stmt, context: PermissionContext): Decode | null {
  const all = words(stmt, context);
  if (!all) return null;
  const program = (all[0] ?? "").split("/").pop() ?? "";
  const args = all.slice(1);
  if ((program === "base64" || program === "basenc") && decodeFlag(args))
    return (input) => Buffer.from(input.replace(/\s+/g, ""), "base64").toString("utf8");
  if (program === "openssl" && /^(base64|enc)$/.test(args[0] ?? "") && args.includes("-d"))
    return (input) => Buffer.from(input.replace(/\s+/g, ""), "base64").toString("utf8");
  if (
    program === "xxd" &&
    args.some((arg) => /^-[a-z]*r/.test(arg)) &&
    args.some((arg) => /^-[a-z]*p/.test(arg))
  )
    return (input) => Buffer.from(input.replace(/[^0-9a-fA-F]/g, ""), "hex").toString("utf8");
  if (program === "rev" && args.length === 0)
    return (input) =>
      input
        .split("\n")
        .map((line) => [...line].reverse().join(""))
        .join("\n");
  if (program === "base32" && decodeFlag(args)) return () => null;
  if (program === "uudecode" || program === "gunzip" || program === "zcat" || program === "xz")
    return () => null;
  if (program === "tr" && args.length >= 2) return () => null;
  return transformOf(program, args);
}

/** A decoder's here-string or here-document input (`base64 -d <<< cm0g…`), decoded. */
export function decodedHereText(stmt: Stmt, context: PermissionContext): string | null {
  const decode = decoderOf(stmt, context);
  if (!decode) return null;
  for (const redirect of stmt.redirects) {
    const word =
      redirect.op === "<<<" ? redirect.word : redirect.op.startsWith("<<") ? redirect.heredoc : null;
    if (word) {
      const input = evaluateWord(word, context);
      return input.exact ? decode(input.text) : null;
    }
  }
  return null;
}

/** `printf '\x72\x6d'`, `echo -e '\0162m'`: the escapes printf and `echo -e` turn into characters. */
export function printfEscapes(text: string): string {
  // One pass, so `\\n` stays a backslash and an n; pass 11 adds the character escapes (`echo -e 'a\nb'`).
  return text.replace(
    /\\(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|0?([0-7]{1,3})|([ntrabfve\\]))/g,
    (_all, hex?: string, unicode?: string, octal?: string, letter?: string) => {
      if (hex !== undefined) return String.fromCharCode(Number.parseInt(hex, 16));
      if (unicode !== undefined) return String.fromCharCode(Number.parseInt(unicode, 16));
      if (octal !== undefined) return String.fromCharCode(Number.parseInt(octal, 8));
      return characterEscapes[letter as string] ?? "";
    },
  );
}

const characterEscapes: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  e: "\x1b",
  "\\": "\\",
};

/**
 * The text element `index` of a pipeline writes: its own (`produced`), a decoder's here-string, or a
 * decoder's output of the text the element before it writes. Null when it cannot be known.
 */
export function pipedText(
  elements: Stmt[],
  index: number,
  context: PermissionContext,
  produced: (stmt: Stmt) => string | null,
): string | null {
  const stmt = elements[index];
  if (!stmt) return null;
  const own = produced(stmt) ?? decodedHereText(stmt, context);
  if (own !== null) return own;
  const decode = decoderOf(stmt, context);
  if (!decode) return null;
  const input = pipedText(elements, index - 1, context, produced);
  return input === null ? null : decode(input);
}
