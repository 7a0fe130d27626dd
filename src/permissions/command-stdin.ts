import { closeSync, openSync, readSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { PermissionContext } from "./context.js";
import { decodedHereText, printfEscapes } from "./decoders.js";
import { printfOutput } from "./pipe-transforms.js";
import type { Stmt, Word } from "./shell-ast.js";
import { type EvaluatedWord, evaluateWord } from "./shell-words.js";
import { unwrap } from "./wrappers.js";

/**
 * What flows into a pipe or a shell's standard input, when the engine can tell: the words of `echo`
 * and `printf`, a here-document given to `cat`, the roots `find` prints, the folder `pwd` prints, a
 * small script file. Used to see `echo 'rm -rf ~' | sh` and `echo ~ | xargs rm -rf` for what they run.
 */

const maxScriptBytes = 256 * 1024;

function callWords(stmt: Stmt, context: PermissionContext): EvaluatedWord[] | null {
  if (stmt.command?.type !== "call" || stmt.command.args.length === 0) return null;
  const words = stmt.command.args.map((word) => evaluateWord(word, context));
  const invocations = unwrap(words).invocations;
  return invocations[invocations.length - 1]?.words ?? null;
}

/** The text a command writes to its standard output, or null when it cannot be known. */
export function producedText(stmt: Stmt, context: PermissionContext): string | null {
  const words = callWords(stmt, context);
  if (!words) return null;
  const program = words[0]?.text.split("/").pop();
  const args = words.slice(1).map((word) => word.text);
  if (program === "echo") {
    const text = args.filter((arg) => !/^-[neE]+$/.test(arg)).join(" ");
    return args.some((arg) => /^-[nE]*e[nE]*$/.test(arg)) ? printfEscapes(text) : text;
  }
  if (program === "printf")
    return printfEscapes(printfOutput(args.filter((arg, index) => index > 0 || arg !== "--")));
  const decoded = decodedHereText(stmt, context);
  if (decoded !== null) return decoded;
  if (program === "cat") {
    for (const redirect of stmt.redirects) {
      if ((redirect.op === "<<" || redirect.op === "<<-") && redirect.heredoc)
        return evaluateWord(redirect.heredoc, context).text;
      if (redirect.op === "<<<" && redirect.word) return evaluateWord(redirect.word, context).text;
    }
    const files = args.filter((arg) => !arg.startsWith("-"));
    if (files.length > 0) return files.map((file) => readScript(file, context.cwd) ?? "").join("\n");
  }
  return null;
}

/** `<(echo 'rm -rf ~')`: the text the substituted command prints, when the word is only that. */
export function processSubstitutionText(word: Word, context: PermissionContext): string | null {
  const part = word.parts.length === 1 ? word.parts[0] : undefined;
  if (part?.type !== "procsubst") return null;
  const last = part.stmts[part.stmts.length - 1];
  return last ? producedText(last, context) : null;
}

/** The words a command prints, as xargs would split them (null-separated or whitespace). */
export function producedWords(stmt: Stmt, context: PermissionContext): EvaluatedWord[] {
  const words = callWords(stmt, context);
  if (!words) return [];
  const program = words[0]?.text.split("/").pop();
  const asWords = (texts: string[]): EvaluatedWord[] =>
    texts.filter((text) => text !== "").map((text) => ({ text, exact: true, glob: false, findings: [] }));
  if (program === "pwd") return asWords([context.cwd]);
  // `$(dirname $PWD)`, `$(realpath ..)`: the folder named, as text (enough for the hardline's second look).
  const operands = words.slice(1).filter((word) => !word.text.startsWith("-"));
  if (program === "dirname") return asWords(operands.map((word) => dirname(word.text)));
  if (program === "realpath" || program === "readlink")
    return asWords(operands.map((word) => resolve(context.cwd, word.text)));
  if (program === "find") {
    const roots: string[] = [];
    for (const word of words.slice(1)) {
      if (["-L", "-H", "-P"].includes(word.text)) continue;
      if (word.text.startsWith("-") || word.text === "(" || word.text === "!") break;
      roots.push(word.text);
    }
    return asWords(roots.length > 0 ? roots : ["."]);
  }
  const text = producedText(stmt, context);
  if (text === null) return [];
  return asWords(text.split(/[\s\0]+/));
}

/** A shell that reads its script from standard input: no `-c`, no script file operand (or `-s`). */
export function shellReadsStdin(stmt: Stmt, context: PermissionContext): boolean {
  const words = callWords(stmt, context);
  if (!words) return false;
  const args = words.slice(1).map((word) => word.text);
  if (args.some((arg) => /^-[A-Za-z]*c[A-Za-z]*$/.test(arg))) return false;
  if (args.some((arg) => /^-[A-Za-z]*s[A-Za-z]*$/.test(arg))) return true;
  return !args.some((arg) => !arg.startsWith("-") && !arg.startsWith("+"));
}

/** A small regular file's text (a script a shell would run), or null. */
export function readScript(path: string, cwd: string): string | null {
  const absolute = isAbsolute(path) ? path : join(cwd, path);
  try {
    const stats = statSync(absolute);
    if (!stats.isFile() || stats.size > maxScriptBytes) return null;
    const buffer = Buffer.alloc(stats.size);
    const fd = openSync(absolute, "r");
    try {
      readSync(fd, buffer, 0, stats.size, 0);
    } finally {
      closeSync(fd);
    }
    return buffer.toString("utf8");
  } catch {
    // Not readable here (missing, a socket, permission denied): nothing the engine can inspect.
    return null;
  }
}
