import { parallelCommand } from "./command-stdin-runners.js";
import type { WalkScope } from "./command-walk-scope.js";
import { hardlineCheck } from "./hardline.js";
import type { Stmt } from "./shell-ast.js";
import { type EvaluatedWord, evaluateWord } from "./shell-words.js";
import { unwrap } from "./wrappers.js";

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
  const invocations = unwrap(words).invocations;
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
