import type { PermissionContext } from "./context.js";
import type { Word, WordPart } from "./shell-ast.js";

/** Something about a command that stops it from being auto-allowed (or, for deny rules, from running at all). */
export interface Finding {
  decision: "ask" | "deny";
  rule: string;
  reason: string;
}

export interface EvaluatedWord {
  /** What bash would pass, as far as the engine can know it. */
  text: string;
  /** False when part of the word comes from something the engine cannot evaluate. */
  exact: boolean;
  /** Unquoted `*`, `?` or `[`: the shell would expand it against the file system. */
  glob: boolean;
  findings: Finding[];
}

/** Variables whose value the engine knows for sure and that never hold secrets. */
const knownVariables = new Set(["HOME", "PWD", "USER", "LOGNAME", "SHELL", "TMPDIR", "LANG", "PATH"]);

export function evaluateWord(word: Word, context: PermissionContext): EvaluatedWord {
  const result: EvaluatedWord = { text: "", exact: true, glob: false, findings: [] };
  word.parts.forEach((part, index) => {
    appendPart(part, result, context, { quoted: false, wordStart: index === 0 });
  });
  // `{rm,-rf,$HOME}`: bash expands braces before parameters, so a brace list split across literal and
  // expansion parts is a brace expansion too (pass 10); each literal part alone showed none.
  const skeleton = word.parts
    .map((part) => (part.type === "lit" ? part.value.replace(/\\./g, "__") : "x"))
    .join("");
  if (
    word.parts.length > 1 &&
    /\{[^{}]*(,|\.\.)[^{}]*\}/.test(skeleton) &&
    !result.findings.some((finding) => finding.rule === "command.brace-expansion")
  ) {
    result.exact = false;
    result.findings.push({
      decision: "ask",
      rule: "command.brace-expansion",
      reason: "a brace expansion spans literal text and expansions; it cannot be checked",
    });
  }
  return result;
}

function appendPart(
  part: WordPart,
  out: EvaluatedWord,
  context: PermissionContext,
  where: { quoted: boolean; wordStart: boolean },
): void {
  switch (part.type) {
    case "lit":
      if (where.quoted) out.text += unescapeDoubleQuoted(part.value);
      else appendUnquotedLiteral(part.value, out, context, where.wordStart);
      return;
    case "sgl":
      out.text += part.dollar ? decodeAnsiC(part.value) : part.value;
      return;
    case "dbl":
      for (const inner of part.parts) appendPart(inner, out, context, { quoted: true, wordStart: false });
      return;
    case "param": {
      const guessed = context.speculation ? speculateParameter(part, context) : undefined;
      if (guessed !== undefined) {
        out.text += guessed;
        return;
      }
      const value = part.simple ? knownValue(part.name, context) : undefined;
      if (value === undefined) {
        out.exact = false;
        out.findings.push({
          decision: "ask",
          rule: "command.variable",
          reason: part.simple
            ? `$${part.name} is expanded by the shell and its value is not checked`
            : `the parameter expansion of $${part.name} cannot be checked`,
        });
        return;
      }
      if (!where.quoted && /[\s*?[]/.test(value)) {
        out.exact = false;
        out.findings.push({
          decision: "ask",
          rule: "command.variable",
          reason: `$${part.name} is unquoted and its value would be split or globbed`,
        });
      }
      out.text += value;
      return;
    }
    case "cmdsubst": {
      const printed = context.speculation?.substitute(part.stmts, context) ?? null;
      if (printed !== null) {
        out.text += printed;
        return;
      }
      out.exact = false;
      out.findings.push({
        decision: "ask",
        rule: "command.substitution",
        reason: "command substitution runs another command",
      });
      return;
    }
    case "procsubst":
      out.exact = false;
      out.findings.push({
        decision: "ask",
        rule: "command.process-substitution",
        reason: "process substitution runs another command",
      });
      return;
    case "other":
      out.exact = false;
      out.findings.push({
        decision: "ask",
        rule: "command.expansion",
        reason: `the shell expansion (${part.nodeType}) cannot be checked`,
      });
      return;
  }
}

/**
 * Speculative pass only: one value `$X` / `${X:-word}` may take (the k-th candidate on pass k), so
 * that every value the command could run with meets the hardline. Never used to allow anything.
 */
function speculateParameter(
  part: Extract<WordPart, { type: "param" }>,
  context: PermissionContext,
): string | undefined {
  const speculation = context.speculation;
  if (!speculation) return undefined;
  const candidates = [...(speculation.variables.get(part.name) ?? [])];
  const known = knownValue(part.name, context);
  if (known !== undefined) candidates.push(known);
  if (part.operand) candidates.unshift(evaluateWord(part.operand, context).text);
  if (candidates.length === 0) return undefined;
  return candidates[Math.min(speculation.pass, candidates.length - 1)];
}

function knownValue(name: string, context: PermissionContext): string | undefined {
  if (name === "HOME") return context.home;
  if (name === "PWD") return context.cwd;
  if (!knownVariables.has(name)) return undefined;
  return context.env[name] ?? "";
}

function appendUnquotedLiteral(
  value: string,
  out: EvaluatedWord,
  context: PermissionContext,
  wordStart: boolean,
): void {
  let index = 0;
  if (wordStart && value.startsWith("~")) {
    const end = value.indexOf("/") === -1 ? value.length : value.indexOf("/");
    const user = value.slice(1, end);
    const otherHome =
      user === "" || user === "+"
        ? null
        : user === "-"
          ? (context.speculation?.variables.get("OLDPWD")?.[0] ?? null)
          : (context.speculation?.userHome(user) ?? null);
    if (user === "") out.text += context.home;
    else if (user === "+") out.text += context.cwd;
    else if (otherHome !== null) out.text += otherHome;
    else {
      out.exact = false;
      out.findings.push({
        decision: "ask",
        rule: "command.tilde",
        reason: `~${user} expands to another user's home or the stack`,
      });
      out.text += value.slice(0, end);
    }
    index = end;
  }
  if (/\{[^}]*(,|\.\.)[^}]*\}/.test(value.replace(/\\./g, "__"))) {
    out.exact = false;
    out.findings.push({
      decision: "ask",
      rule: "command.brace-expansion",
      reason: `brace expansion in "${value}" cannot be checked`,
    });
  }
  for (; index < value.length; index++) {
    const char = value[index] as string;
    if (char === "\\") {
      const next = value[index + 1];
      index += 1;
      if (next !== undefined && next !== "\n") out.text += next;
      continue;
    }
    if (char === "*" || char === "?" || char === "[") out.glob = true;
    out.text += char;
  }
}

function unescapeDoubleQuoted(value: string): string {
  return value.replace(/\\([$`"\\\n])/g, (_match, char: string) => (char === "\n" ? "" : char));
}

const simpleEscapes: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Bash `$'...'` quoting: decoded so `$'\x72m' -rf /` is seen as `rm -rf /`. */
export function decodeAnsiC(value: string): string {
  return value.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (match, seq: string) => {
      const head = seq[0] as string;
      if (head === "x" || head === "u" || head === "U")
        return String.fromCodePoint(Number.parseInt(seq.slice(1), 16));
      if (/[0-7]/.test(head)) return String.fromCharCode(Number.parseInt(seq, 8) & 0xff);
      if (head === "c" && seq.length === 2) return String.fromCharCode((seq.charCodeAt(1) & 0x1f) >>> 0);
      return simpleEscapes[seq] ?? match;
    },
  );
}
