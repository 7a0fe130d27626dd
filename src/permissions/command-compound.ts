import { sensitiveArgument } from "./command-paths.js";
import type { WalkScope } from "./command-walk-scope.js";
import { injectedLibraryFinding } from "./injected-code.js";
import { subscriptScripts } from "./name-subscripts.js";
import type { Command, Stmt, Word } from "./shell-ast.js";
import { type EvaluatedWord, evaluateWord, type Finding } from "./shell-words.js";
import { unreadStartupFile } from "./unread-programs.js";
import { variableScript } from "./wrappers.js";
import type { WrittenFiles } from "./written-files.js";

/** Shell constructs whose words bash may read as names or arithmetic, subscripts expanded. */
const subscriptClauses = new Set(["DeclClause", "LetClause", "TestClause", "ArithmCmd"]);

/** What judging a compound command needs from the walker (split out of command-walker.ts). */
export interface CompoundWalk {
  scope: () => WalkScope;
  stmt: (stmt: Stmt) => void;
  evaluate: (word: Word) => EvaluatedWord;
  written: WrittenFiles;
}

/** `if`, loops, blocks, `[[ ]]`, `declare`/`export`: its statements, assignments and words. */
export function compoundChecks(command: Extract<Command, { type: "compound" }>, walk: CompoundWalk): void {
  const add = (finding: Finding) => walk.scope().add(finding);
  if (command.nodeType !== "TimeClause") {
    add({
      decision: "ask",
      rule: "command.compound",
      reason: `the command uses a shell construct (${command.nodeType})`,
    });
  }
  for (const inner of command.stmts) walk.stmt(inner);
  const nameref = namerefFinding(command);
  if (nameref) add(nameref);
  // `export GIT_SSH_COMMAND='rm -rf ~'`: a command-valued variable set for what follows.
  for (const assign of command.assigns ?? []) {
    const injected = injectedLibraryFinding(assign.name);
    if (injected) add(injected);
    const value = assign.value ? evaluateWord(assign.value, walk.scope().context) : null;
    if (value?.exact) walk.scope().innerDenies(variableScript(assign.name, value.text));
    // Pass 12: `export BASH_ENV=x.sh` names the startup file every later bash reads.
    if (value?.exact && assign.name !== "")
      unreadStartupFile(assign.name, value.text, undefined, walk.written, walk.scope());
  }
  // `[[ -f ~/.ssh/id_rsa ]]`, `for f in ~/.aws/credentials`: a word naming a secret is refused here too.
  for (const word of command.words) {
    const evaluated = walk.evaluate(word);
    if (evaluated.exact && !evaluated.glob) sensitiveArgument(walk.scope(), evaluated.text);
    // `declare 'a[$(rm -rf ~)]=1'`, `let 'a[$(…)]'`, `[[ -v 'a[$(…)]' ]]`: a quoted subscript bash expands.
    if (evaluated.exact && subscriptClauses.has(command.nodeType)) {
      const subscripts = subscriptScripts("let", [evaluated.text]);
      for (const finding of subscripts.findings) add(finding);
      for (const script of subscripts.scripts) walk.scope().innerDenies(script);
    }
  }
}

/**
 * Pass 12: `declare -n ref=NAME` (also `typeset`, `local`, `nameref`) makes every later use of `ref`
 * read and write another variable, chosen by a string: the engine's view of which variable holds what
 * is then wrong. Opaque, like `eval` (`export -n` only removes the export mark and stays ordinary).
 */
export function namerefFinding(command: Extract<Command, { type: "compound" }>): Finding | null {
  if (command.nodeType !== "DeclClause" || command.variant === "export") return null;
  const flags = (command.assigns ?? [])
    .filter((assign) => assign.name === "" && assign.value)
    .map((assign) =>
      (assign.value as Word).parts.map((part) => ("value" in part ? part.value : "")).join(""),
    );
  const declares = command.variant === "nameref" || flags.some((flag) => /^-[a-zA-Z]*n/.test(flag));
  if (!declares) return null;
  return {
    decision: "ask",
    rule: "command.eval",
    reason: `${command.variant ?? "declare"} -n makes a name refer to another variable chosen by a string; what it reads and writes cannot be followed`,
  };
}
