import type { Finding } from "./shell-words.js";

/**
 * Bash reads some builtins' operands as variable names or arithmetic, and an array subscript there is
 * expanded when the builtin runs: `printf -v 'a[$(rm -rf ~)]' x`, `test -v 'a[$(cmd)]'`, `read`,
 * `unset`, `declare`, `let`, `getopts`, `wait -p`. The quotes hide the substitution from the parser,
 * so it is found here: the command inside meets the hardline, and the word is opaque (never `--yes`).
 */

/** Builtins whose every operand may be a name or an arithmetic expression. */
const nameTakers = new Set([
  "read",
  "mapfile",
  "readarray",
  "unset",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "let",
  "getopts",
  "wait",
]);

/** The operands a builtin reads as names: `printf -v NAME`, `test -v NAME`, or all of them. */
function nameWords(program: string, args: string[]): string[] {
  if (program === "printf" || program === "test" || program === "[") {
    const names: string[] = [];
    args.forEach((arg, index) => {
      if (arg === "-v" || arg === "-R") names.push(args[index + 1] ?? "");
      else if (program === "printf" && /^-v./.test(arg)) names.push(arg.slice(2));
    });
    return names;
  }
  return nameTakers.has(program) ? args : [];
}

/** The texts of `$( … )` and `` `…` `` substitutions written inside a word. */
export function substitutionsIn(word: string): string[] {
  const found: string[] = [];
  for (let start = word.indexOf("$("); start >= 0; start = word.indexOf("$(", start + 2)) {
    let depth = 0;
    for (let index = start + 1; index < word.length; index++) {
      if (word[index] === "(") depth += 1;
      else if (word[index] === ")" && --depth === 0) {
        found.push(word.slice(start + 2, index));
        break;
      }
    }
  }
  for (const match of word.matchAll(/`([^`]*)`/g)) found.push(match[1] as string);
  return found;
}

export interface SubscriptScripts {
  scripts: string[];
  findings: Finding[];
}

export function subscriptScripts(program: string, args: string[]): SubscriptScripts {
  const scripts: string[] = [];
  for (const word of nameWords(program, args)) {
    const bracket = word.indexOf("[");
    if (bracket < 0) continue;
    scripts.push(...substitutionsIn(word.slice(bracket)));
  }
  const findings: Finding[] =
    scripts.length > 0
      ? [
          {
            decision: "ask",
            rule: "command.substitution",
            reason: `${program} expands the array subscript in a name it is given, running the command substituted there`,
          },
        ]
      : [];
  return { scripts, findings };
}
