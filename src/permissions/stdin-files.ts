import { readScript } from "./command-stdin.js";
import type { StdinJudge } from "./command-stdin-runners.js";
import type { PermissionContext } from "./context.js";
import { unknownFileRun } from "./program-file-checks.js";
import type { Stmt } from "./shell-ast.js";
import { evaluateWord, type Finding } from "./shell-words.js";
import { unwrap } from "./wrappers.js";
import type { WrittenFiles } from "./written-files.js";

/**
 * Pass 11: files that reach a program reading its input as commands or words. `bash < x.sh` and
 * `cat x.sh | sh` after `echo 'rm -rf ~' > x.sh` run what this command wrote, not what is on disk;
 * `xargs rm -rf < list` and `cat list | xargs rm -rf` with a list nobody can read (missing, too large,
 * not a regular file) build a command unknown until it runs: opaque (`command.eval`, never `--yes`),
 * like `xargs -a missing` since pass 10.
 */

/** Readers whose input is run or becomes a command: everything but an interpreter (data for its script). */
const runsInput = new Set<StdinJudge>(["shell", "builder", "makefile", "crontab", "escapes"]);

export interface FedText {
  /** The text, or null when it cannot be known; undefined when no file is involved. */
  text?: string | null;
  finding?: Finding;
}

/** `PROGRAM < FILE`: the file's text as this command leaves it, or why it cannot be known. */
export function redirectedFileText(
  stmt: Stmt,
  judge: StdinJudge,
  context: PermissionContext,
  written: WrittenFiles,
): FedText {
  if (!runsInput.has(judge)) return {};
  let file: string | null = null;
  for (const redirect of stmt.redirects) {
    // A here-document or here-string wins over a file only when it comes last; the first input found
    // is what stdinText reads, so the same order is kept here.
    if (redirect.op === "<<" || redirect.op === "<<-" || redirect.op === "<<<") return {};
    if (redirect.op !== "<" || !redirect.word) continue;
    if (redirect.word.parts.length === 1 && redirect.word.parts[0]?.type === "procsubst") return {};
    const evaluated = evaluateWord(redirect.word, context);
    if (!evaluated.exact) return {};
    file = evaluated.text;
    break;
  }
  if (file === null) return {};
  return fileText(file, judge, context, written);
}

/** `cat F… | PROGRAM`: the files' text as this command leaves them, or why it cannot be known. */
export function catFedText(
  producer: Stmt,
  judge: StdinJudge | null,
  context: PermissionContext,
  written: WrittenFiles,
): FedText {
  if (judge === null || !runsInput.has(judge)) return {};
  if (producer.command?.type !== "call" || producer.command.args.length === 0) return {};
  if (producer.redirects.some((redirect) => redirect.op.startsWith("<"))) return {};
  const words = producer.command.args.map((word) => evaluateWord(word, context));
  const final = unwrap(words).invocations.at(-1);
  if (final?.program !== "cat") return {};
  const files = final.words.slice(1).filter((word) => !word.text.startsWith("-") || word.text === "-");
  if (files.length === 0 || files.some((word) => !word.exact || word.text === "-")) return {};
  const texts: string[] = [];
  for (const word of files) {
    const fed = fileText(word.text, judge, context, written);
    if (fed.text === null || fed.text === undefined) return fed;
    texts.push(fed.text);
  }
  return { text: texts.join("\n") };
}

function fileText(
  file: string,
  judge: StdinJudge,
  context: PermissionContext,
  written: WrittenFiles,
): FedText {
  if (file === "/dev/null") return { text: "" };
  if (written.unknown(file, context.cwd)) return { text: null, finding: unknownFileRun(file) };
  const own = written.text(file, context.cwd);
  if (own !== undefined) return { text: own };
  const text = readScript(file, context.cwd);
  if (text !== null) return { text };
  return {
    text: null,
    finding: {
      decision: "ask",
      rule: "command.eval",
      reason: `${judge === "builder" ? "the command built from" : "what runs from"} ${file} cannot be read before it runs`,
    },
  };
}
