import { readScript } from "./command-stdin.js";
import { parallelCommand } from "./command-stdin-runners.js";
import type { WalkScope } from "./command-walk-scope.js";
import { hardlineCheck } from "./hardline.js";
import type { Stmt } from "./shell-ast.js";
import { type EvaluatedWord, evaluateWord } from "./shell-words.js";
import { type Invocation, unwrap } from "./wrappers.js";

/**
 * xargs and parallel build a command from the words of their input (`echo ~ | xargs rm -rf`,
 * `xargs -I{} sh -c 'rm -rf {}' <<< ~`): when the engine can tell what the words are, the command
 * they build is held to the hardline with them.
 */

/** Words as xargs splits them (whitespace or NUL). */
export function inputWords(text: string): EvaluatedWord[] {
  return text
    .split(/[\s\0]+/)
    .filter((word) => word !== "")
    .map((word) => ({ text: word, exact: true, glob: false, findings: [] }));
}

/** The command xargs or parallel builds, with the words fed to it, held to the hardline. */
export function feedBuilder(element: Stmt, fed: EvaluatedWord[], scope: WalkScope): void {
  if (element.command?.type !== "call" || element.command.args.length === 0 || fed.length === 0) return;
  const words = element.command.args.map((word) => evaluateWord(word, scope.context));
  feedInvocations(unwrap(words).invocations, fed, scope);
}

/** The command xargs or parallel builds from `invocations` (one command's wrappers and program), with `fed`. */
export function feedInvocations(invocations: Invocation[], fed: EvaluatedWord[], scope: WalkScope): void {
  if (fed.length === 0) return;
  const xargsAt = invocations.findIndex((invocation) => invocation.program === "xargs");
  const built = xargsAt >= 0 ? invocations[xargsAt + 1] : parallelCommand(invocations);
  if (!built) return;
  // `xargs -I{} sh -c 'rm -rf {}'`, `parallel rm -rf {}`: the input replaces the marker instead.
  const marker = xargsAt >= 0 ? replaceMarker(invocations[xargsAt]?.words ?? []) : "{}";
  const usesMarker = marker !== null && built.words.some((word) => word.text.includes(marker));
  const commandWords = usesMarker
    ? built.words.map((word) => ({ ...word, text: word.text.replaceAll(marker, fed[0]?.text ?? "") }))
    : [...built.words, ...fed];
  const hard = hardlineCheck({ ...built, words: commandWords }, scope.context, scope.fsApi);
  if (hard) scope.add(hard);
  else scope.innerDenies(commandWords.map((word) => shellQuote(word.text)).join(" "));
}

/** xargs's replace string: `-I X`, `-IX`, `--replace[=X]`, `-i[X]` (default `{}`), or null. */
function replaceMarker(words: EvaluatedWord[]): string | null {
  for (let index = 1; index < words.length; index++) {
    const text = words[index]?.text ?? "";
    if (text === "-I") return words[index + 1]?.text ?? null;
    if (text.startsWith("-I")) return text.slice(2);
    if (text === "--replace" || text === "-i") return "{}";
    if (text.startsWith("--replace=")) return text.slice(10);
    if (text.startsWith("-i")) return text.slice(2);
  }
  return null;
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** GNU parallel's replacement strings: `{}`, `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`, `{1}`… */
const parallelMarker = /\{(?:\d*(?:\.|\/|\/\/|\/\.)?|#|%)\}/g;

/**
 * `parallel 'rm -rf {}' ::: ~`, `parallel rm -rf :::: list`, `parallel -a list rm`: the words after
 * `:::` (or in the files `::::`/`-a` name) fill the command's replacement strings, or are appended;
 * parallel hands the result to a shell, so it is judged as shell text (pass 10).
 */
export function parallelOperands(invocation: Invocation, scope: WalkScope): void {
  if (invocation.program !== "parallel") return;
  const built = parallelCommand([invocation]);
  if (!built) return;
  const words = invocation.words.slice(1);
  const fed: string[] = [];
  let mode: "none" | "words" | "files" = "none";
  words.forEach((word, index) => {
    if (word.text === ":::" || word.text === ":::+") mode = "words";
    else if (word.text === "::::" || word.text === "::::+") mode = "files";
    else if (mode === "words") fed.push(word.text);
    else if (mode === "files") fed.push(...fileWords(word.text, scope));
    else if ((word.text === "-a" || word.text === "--arg-file") && words[index + 1])
      fed.push(...fileWords(words[index + 1]?.text ?? "", scope));
    else if (word.text.startsWith("--arg-file=")) fed.push(...fileWords(word.text.slice(11), scope));
  });
  const template = built.words.map((word) => word.text).join(" ");
  const marked = new RegExp(parallelMarker.source).test(template);
  for (const value of fed.slice(0, 8)) {
    const quoted = shellQuote(value);
    scope.innerDenies(marked ? template.replace(parallelMarker, () => quoted) : `${template} ${quoted}`);
  }
}

function fileWords(file: string, scope: WalkScope): string[] {
  const text = readScript(file, scope.context.cwd);
  // Pass 11: `parallel rm -rf :::: missing`: the words come from a file nobody can read before it runs.
  if (text === null)
    scope.add({
      decision: "ask",
      rule: "command.eval",
      reason: `parallel takes the words of its command from ${file}, which cannot be read before it runs`,
    });
  return text === null ? [] : inputWords(text).map((word) => word.text);
}
