import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expandBraces } from "./command-rules.js";
import { producedWords } from "./command-stdin.js";
import type { PermissionContext, Speculation } from "./context.js";
import type { Stmt, Word } from "./shell-ast.js";
import { evaluateWord } from "./shell-words.js";
import { isShell, programName } from "./wrappers.js";

/**
 * The engine's second look at a command whose words depend on things it cannot know for sure:
 * `H=~; rm -rf $H`, `for d in / ~; do rm -rf "$d"; done`, `rm -rf ${X:-~}`, `rm -rf $(printf ~)`,
 * `cat ~root/.ssh/id_rsa`. The first look asks (opaque); this one substitutes every value the
 * command itself gives those words and keeps only hardline and secret denials, so a deny hidden
 * behind an expansion is still a deny. It can only add denials, never allow anything.
 */

const maxCandidates = 4;

/** Denials a speculative pass may add: the hardline, secrets and Mercury's own files. */
export function isHardDenial(finding: { decision: string; rule: string }): boolean {
  return (
    finding.decision === "deny" &&
    (finding.rule.startsWith("hardline.") ||
      finding.rule === "path.sensitive" ||
      finding.rule === "path.mercury-state")
  );
}

/** The contexts of the speculative passes: one per candidate index (at most four). */
export function speculativeContexts(stmts: readonly Stmt[], context: PermissionContext): PermissionContext[] {
  const variables = collectVariables(stmts, context);
  const widest = Math.max(1, ...[...variables.values()].map((values) => values.length));
  const passes = Math.min(maxCandidates, widest + 1);
  const out: PermissionContext[] = [];
  for (let pass = 0; pass < passes; pass++)
    out.push({ ...context, speculation: speculation(variables, pass, context) });
  return out;
}

function speculation(
  variables: ReadonlyMap<string, readonly string[]>,
  pass: number,
  context: PermissionContext,
): Speculation {
  // `~tester` where tester is the user Mercury runs as is the home folder Mercury knows, whatever
  // /etc/passwd says (or when it has no entry): `rm -rf ~tester/` is `rm -rf ~`.
  const self = new Set(
    [context.env.USER, context.env.LOGNAME].filter((name) => name !== undefined && name !== ""),
  );
  return {
    variables,
    pass,
    substitute,
    userHome: (name) => (self.has(name) ? context.home : userHome(name)),
  };
}

/** `$(echo ~)`, `$(printf %s /)`, `$(pwd)`: what one simple printing command writes. */
function substitute(stmts: readonly Stmt[], context: PermissionContext): string | null {
  if (stmts.length !== 1) return null;
  const words = producedWords(stmts[0] as Stmt, context);
  if (words.length === 0) return null;
  return words.map((word) => word.text).join(" ");
}

let passwd: Map<string, string> | null = null;

/** `~root`, `~alice`: the home directory /etc/passwd gives that user. */
function userHome(name: string): string | null {
  if (passwd === null) {
    passwd = new Map();
    try {
      for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
        const fields = line.split(":");
        if (fields.length >= 6 && fields[0] && fields[5]) passwd.set(fields[0], fields[5]);
      }
    } catch {
      // No /etc/passwd (macOS keeps users elsewhere): ~name stays unknown and is asked as before.
    }
  }
  if (name === "-") return null;
  return passwd.get(name) ?? (/^[a-z_][a-z0-9_-]*$/.test(name) ? join("/home", name) : null);
}

/** Values the command itself gives its variables, in the order they appear. */
function collectVariables(stmts: readonly Stmt[], context: PermissionContext): Map<string, string[]> {
  const variables = new Map<string, string[]>();
  const defaults: Record<string, string> = {
    MERCURY_HOME: context.mercuryHome,
    XDG_CONFIG_HOME: context.env.XDG_CONFIG_HOME ?? join(context.home, ".config"),
    XDG_DATA_HOME: context.env.XDG_DATA_HOME ?? join(context.home, ".local", "share"),
    XDG_CACHE_HOME: context.env.XDG_CACHE_HOME ?? join(context.home, ".cache"),
    OLDPWD: context.env.OLDPWD ?? context.home,
  };
  for (const [name, value] of Object.entries(defaults)) variables.set(name, [value]);
  const scope = (): PermissionContext => ({ ...context, speculation: speculation(variables, 0, context) });
  const add = (name: string, value: string) => {
    const values = variables.get(name) ?? [];
    if (!values.includes(value) && values.length < maxCandidates) values.push(value);
    variables.set(name, values);
  };
  const textOf = (word: Word) => evaluateWord(word, scope()).text;
  const visit = (stmt: Stmt) => {
    const command = stmt.command;
    if (!command) return;
    if (command.type === "binary") {
      visit(command.left);
      visit(command.right);
      return;
    }
    if (command.type === "func") {
      command.body.forEach(visit);
      return;
    }
    if (command.type === "compound") {
      if (command.loopName) {
        for (const word of command.words) {
          for (const text of expandBraces(textOf(word))) add(command.loopName, text);
        }
      }
      for (const assign of command.assigns ?? []) add(assign.name, assign.value ? textOf(assign.value) : "");
      command.stmts.forEach(visit);
      return;
    }
    for (const assign of command.assigns) add(assign.name, assign.value ? textOf(assign.value) : "");
    if (command.args.length === 0) return;
    const texts = command.args.map(textOf);
    const program = programName({ text: texts[0] as string, exact: true, glob: false, findings: [] });
    const operands = texts.slice(1);
    if (["export", "declare", "typeset", "local", "readonly"].includes(program)) {
      for (const text of operands) {
        const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(text);
        if (match) add(match[1] as string, match[2] as string);
      }
    } else if (program === "read" || program === "mapfile" || program === "readarray") {
      const name = operands.filter((text) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(text)).at(-1) ?? "REPLY";
      for (const redirect of stmt.redirects) {
        const source = redirect.op === "<<<" ? redirect.word : redirect.heredoc;
        if (source) add(name, textOf(source).trim());
      }
    } else if (program === "printf" && operands[0] === "-v" && operands[1]) {
      add(operands[1], operands.slice(2).join(" ").replace(/%[sb]/g, ""));
    } else if (program === "set" && operands[0] === "--") {
      operands.slice(1).forEach((text, index) => {
        add(String(index + 1), text);
      });
    } else if (isShell(program)) {
      // `sh -c 'eval "$1"' _ 'rm -rf ~'`: the words after the script are $0, $1, …
      const script = operands.findIndex((text) => /^-[A-Za-z]*c[A-Za-z]*$/.test(text));
      if (script >= 0) {
        operands.slice(script + 2).forEach((text, index) => {
          add(String(index), text);
        });
      }
    } else if (program === "cd" && operands.length > 0) {
      add("OLDPWD", context.cwd);
    }
  };
  stmts.forEach(visit);
  return variables;
}

/**
 * `x='rm -rf /'; $x`, `rm${IFS}-rf${IFS}/`, `IFS=,; x=rm,-rf,/; $x`: an unquoted expansion is split
 * into words by IFS, so its value can be a whole command. The source is rewritten with each unquoted
 * `$NAME`/`${NAME}` the speculation knows replaced by its value — split where IFS splits, every other
 * character escaped (bash does not expand `~`, quotes or `;` in an expansion's result) — and judged
 * again (pass 10). Null when nothing changed.
 */
export function resplitSource(source: string, context: PermissionContext): string | null {
  const speculation = context.speculation;
  if (!speculation) return null;
  const pick = (name: string): string | undefined => {
    const values = speculation.variables.get(name) ?? [];
    return values[Math.min(speculation.pass, values.length - 1)];
  };
  const separators = pick("IFS") ?? " \t\n";
  const candidate = (name: string): string | undefined => (name === "IFS" ? separators : pick(name));
  let out = "";
  let changed = false;
  let quote: "'" | '"' | null = null;
  for (let index = 0; index < source.length; index++) {
    const char = source[index] as string;
    if (char === "\\" && quote !== "'") {
      out += source.slice(index, index + 2);
      index += 1;
      continue;
    }
    if (quote === null && (char === "'" || char === '"')) quote = char;
    else if (quote === char) quote = null;
    if (char === "$" && quote === null) {
      const match = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(source.slice(index));
      const name = match?.[1] ?? match?.[2];
      const value = name === undefined ? undefined : candidate(name);
      if (match && value !== undefined && [...value].some((letter) => separators.includes(letter))) {
        out += [...value]
          .map((letter) =>
            separators.includes(letter) ? " " : /[\w/.,:=+@%-]/.test(letter) ? letter : `\\${letter}`,
          )
          .join("");
        index += match[0].length - 1;
        changed = true;
        continue;
      }
    }
    out += char;
  }
  return changed ? out : null;
}
