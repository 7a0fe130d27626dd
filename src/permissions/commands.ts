import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { isWithin, type PermissionContext } from "./context.js";
import { downloaders, hardlineCheck, protectedWriteTarget } from "./hardline.js";
import { checkPath, nodePathFs, type PathFs, resolveReal } from "./paths.js";
import { judgeReadonly } from "./readonly.js";
import { sensitiveMatch, sensitiveRoots } from "./sensitive.js";
import { type Command, parseShell, type Redirect, type Stmt, stmtsInWord } from "./shell-ast.js";
import { type EvaluatedWord, evaluateWord, type Finding } from "./shell-words.js";
import type { Decision } from "./types.js";
import { hasInvisibleCharacters, hasNonAscii } from "./unicode.js";
import { isShell, programName, unwrap } from "./wrappers.js";

/**
 * Command policy: the command is parsed with a real bash parser, every simple command in it
 * (including those nested in substitutions, functions and `bash -c` strings) is judged, and the
 * strictest finding decides. "allow" only when nothing was found: every command is read-only with
 * checked arguments. Pipes between read-only commands are allowed; a pipe into a shell or
 * interpreter is asked, and a download piped into one is a hardline denial.
 */

const interpreterInlineFlags: Record<string, string[]> = {
  node: ["-e", "--eval", "-p", "--print"],
  nodejs: ["-e", "--eval", "-p", "--print"],
  deno: ["eval"],
  bun: ["-e", "--eval", "-p", "--print"],
  python: ["-c"],
  python2: ["-c"],
  python3: ["-c"],
  perl: ["-e", "-E"],
  ruby: ["-e"],
  php: ["-r"],
  lua: ["-e"],
  osascript: ["-e"],
  pwsh: ["-c", "-command"],
  powershell: ["-c", "-command"],
  awk: [],
  gawk: [],
  tclsh: [],
};

const interpreters = new Set([
  ...Object.keys(interpreterInlineFlags),
  "eval",
  "source",
  ".",
  "xargs",
  "sudo",
]);

const standardBinDirs = new Set([
  "/bin",
  "/usr/bin",
  "/usr/local/bin",
  "/sbin",
  "/usr/sbin",
  "/opt/homebrew/bin",
]);

/** Ask rules in the order they are reported when several apply (the most telling first). */
const askPriority = [
  "command.parse-error",
  "command.control-chars",
  "command.unicode",
  "command.privilege",
  "command.pipe-to-interpreter",
  "command.inline-code",
  "command.chain",
  "command.background",
  "command.function",
  "command.compound",
  "command.substitution",
  "command.process-substitution",
  "command.redirect",
  "command.find-exec",
  "command.find-delete",
  "command.find-write",
  "command.xargs",
  "command.git-config",
  "command.assignment",
  "command.variable",
  "command.tilde",
  "command.brace-expansion",
  "command.expansion",
  "command.glob",
  "command.environment-dump",
  "command.program-path",
  "command.not-readonly",
  "command.follows-symlinks",
  "command.recursive-sensitive",
];
/**
 * Findings that mean the engine cannot know what will run. Allow-all does not cover them: the
 * hardline promise would be empty if `"$(echo rm)" -rf /` ran unseen under --yes.
 */
export const opaqueRules = new Set([
  "command.parse-error",
  "command.control-chars",
  "command.unicode",
  "command.substitution",
  "command.process-substitution",
  "command.variable",
  "command.tilde",
  "command.brace-expansion",
  "command.expansion",
]);

const denyPriority = ["hardline.", "path.sensitive", "path."];

interface Analysis {
  findings: Finding[];
}

export interface CommandCheckOptions {
  fs?: PathFs;
}

export function decideCommand(
  command: string,
  cwd: string,
  context: PermissionContext,
  options: CommandCheckOptions = {},
): Decision {
  const subject = command.trim();
  if (subject === "")
    return { decision: "deny", rule: "command.invalid", reason: "the command is empty", subject };
  const local: PermissionContext = { ...context, cwd };
  const analysis: Analysis = { findings: [] };
  // Checked before trimming: a trailing carriage return is still a control character.
  if (hasControlCharacters(command)) {
    analysis.findings.push({
      decision: "ask",
      rule: "command.control-chars",
      reason: "the command contains control characters",
    });
  }
  const fsApi = options.fs ?? nodePathFs;
  const parsed = analyzeSource(subject, local, fsApi, analysis, 0);
  const folded = subject.normalize("NFKC");
  if (folded !== subject || hasInvisibleCharacters(subject)) {
    analysis.findings.push({
      decision: "ask",
      rule: "command.unicode",
      reason: "the command contains look-alike or invisible Unicode characters",
    });
    // Judge the look-alike form too: "ｒｍ -ｒｆ /" must meet the same hardline as "rm -rf /".
    const shadow: Analysis = { findings: [] };
    analyzeSource(folded.replace(/[\p{Cf}]/gu, ""), local, fsApi, shadow, 0);
    analysis.findings.push(...shadow.findings.filter((finding) => finding.decision === "deny"));
  }
  const chosen = choose(analysis.findings);
  const single =
    parsed !== null &&
    parsed.length === 1 &&
    parsed[0]?.command?.type === "call" &&
    parsed[0].redirects.length === 0 &&
    !parsed[0].background;
  if (!chosen) {
    return {
      decision: "allow",
      rule: "command.readonly",
      reason: "every command is read-only and every path is allowed",
      subject,
      singleCommand: single,
    };
  }
  const opaque = analysis.findings.some((finding) => opaqueRules.has(finding.rule));
  return {
    opaque,
    decision: chosen.decision,
    rule: chosen.rule,
    reason: chosen.reason,
    subject,
    singleCommand: single,
  };
}

function choose(findings: Finding[]): Finding | null {
  const denies = findings.filter((finding) => finding.decision === "deny");
  if (denies.length > 0) {
    for (const prefix of denyPriority) {
      const hit = denies.find((finding) => finding.rule.startsWith(prefix));
      if (hit) return hit;
    }
    return denies[0] ?? null;
  }
  for (const rule of askPriority) {
    const hit = findings.find((finding) => finding.rule === rule);
    if (hit) return hit;
  }
  return findings[0] ?? null;
}

function analyzeSource(
  source: string,
  context: PermissionContext,
  fsApi: PathFs,
  out: Analysis,
  depth: number,
): Stmt[] | null {
  if (hasControlCharacters(source)) {
    out.findings.push({
      decision: "ask",
      rule: "command.control-chars",
      reason: "the command contains control characters",
    });
  }
  if (depth > 4) {
    out.findings.push({
      decision: "ask",
      rule: "command.inline-code",
      reason: "shell code nested too deep to judge",
    });
    return null;
  }
  const parsed = parseShell(source);
  if (!parsed.ok) {
    if (/:\s*\(\s*\)\s*\{/.test(source) || /\b(\w+)\s*\(\s*\)\s*\{[^}]*\b\1\s*\|\s*\1/.test(source)) {
      out.findings.push({
        decision: "deny",
        rule: "hardline.fork-bomb",
        reason: "the command looks like a fork bomb",
      });
    }
    out.findings.push({
      decision: "ask",
      rule: "command.parse-error",
      reason: `the command could not be parsed: ${parsed.error}`,
    });
    return null;
  }
  const walker = new Walker(context, fsApi, out, depth);
  if (parsed.stmts.length > 1) {
    out.findings.push({ decision: "ask", rule: "command.chain", reason: "several commands are chained" });
  }
  for (const stmt of parsed.stmts) walker.stmt(stmt);
  return parsed.stmts;
}

class Walker {
  constructor(
    private readonly context: PermissionContext,
    private readonly fsApi: PathFs,
    private readonly out: Analysis,
    private readonly depth: number,
  ) {}

  private add(finding: Finding): void {
    this.out.findings.push(finding);
  }

  stmt(stmt: Stmt): void {
    if (stmt.background)
      this.add({
        decision: "ask",
        rule: "command.background",
        reason: "the command runs in the background (&)",
      });
    if (stmt.coprocess)
      this.add({ decision: "ask", rule: "command.compound", reason: "coproc starts a background process" });
    for (const redirect of stmt.redirects) this.redirect(redirect);
    if (stmt.command) this.command(stmt.command);
  }

  private command(command: Command): void {
    switch (command.type) {
      case "call":
        this.call(command);
        return;
      case "binary":
        if (command.op === "&&" || command.op === "||") {
          this.add({
            decision: "ask",
            rule: "command.chain",
            reason: `commands are chained with ${command.op}`,
          });
          this.stmt(command.left);
          this.stmt(command.right);
          return;
        }
        this.pipeline(command);
        return;
      case "func":
        this.add({
          decision: "ask",
          rule: "command.function",
          reason: `the command defines a shell function (${command.name})`,
        });
        if (programsIn(command.body, this.context).has(command.name)) {
          this.add({
            decision: "deny",
            rule: "hardline.fork-bomb",
            reason: `function ${command.name} calls itself: a fork bomb`,
          });
        }
        for (const inner of command.body) this.stmt(inner);
        return;
      case "compound":
        if (command.nodeType !== "TimeClause") {
          this.add({
            decision: "ask",
            rule: "command.compound",
            reason: `the command uses a shell construct (${command.nodeType})`,
          });
        }
        for (const inner of command.stmts) this.stmt(inner);
        for (const word of command.words) this.evaluate(word);
        return;
    }
  }

  private pipeline(command: Extract<Command, { type: "binary" }>): void {
    const elements = flattenPipeline(command);
    const before = new Set<string>();
    elements.forEach((element, index) => {
      this.stmt(element);
      const programs = programsIn([element], this.context);
      const last = finalProgram(element, this.context);
      if (index > 0 && last !== null && (isShell(last) || interpreters.has(last))) {
        if ([...before].some((program) => downloaders.has(program))) {
          this.add({
            decision: "deny",
            rule: "hardline.download-to-shell",
            reason: `a download is piped into ${last}`,
          });
        } else if (last === "xargs") {
          this.add({
            decision: "ask",
            rule: "command.xargs",
            reason: "xargs builds and runs commands from its input",
          });
        } else {
          this.add({
            decision: "ask",
            rule: "command.pipe-to-interpreter",
            reason: `output is piped into ${last}, which runs it as code`,
          });
        }
      }
      for (const program of programs) before.add(program);
    });
  }

  private evaluate(word: Parameters<typeof evaluateWord>[0]): EvaluatedWord {
    const evaluated = evaluateWord(word, this.context);
    for (const finding of evaluated.findings) this.add(finding);
    for (const nested of stmtsInWord(word)) this.stmt(nested);
    return evaluated;
  }

  private redirect(redirect: Redirect): void {
    if (redirect.heredoc) this.evaluate(redirect.heredoc);
    if (!redirect.word) return;
    const target = this.evaluate(redirect.word);
    const op = redirect.op;
    if (op === "<<" || op === "<<-" || op === "<<<") return;
    if ((op === ">&" || op === "<&") && /^(\d+|-)$/.test(target.text)) return;
    if (!target.exact) return;
    if (op === "<" || op === "<&") {
      this.pathFinding(target.text, "read", "command.redirect");
      return;
    }
    if (target.text === "/dev/null") return;
    const hard = protectedWriteTarget(target.text, this.context);
    if (hard) {
      this.add(hard);
      return;
    }
    this.sensitive(target.text);
    this.add({
      decision: "ask",
      rule: "command.redirect",
      reason: `output is redirected to ${target.text} (${op}), which writes a file`,
    });
  }

  private call(call: Extract<Command, { type: "call" }>): void {
    for (const assign of call.assigns) {
      if (assign.value) this.evaluate(assign.value);
      this.add({
        decision: "ask",
        rule: "command.assignment",
        reason: `the command sets ${assign.name}, which can change what runs`,
      });
    }
    if (call.args.length === 0) return;
    const words = call.args.map((word) => this.evaluate(word));
    const first = words[0] as EvaluatedWord;
    if (hasNonAscii(first.text)) {
      this.add({
        decision: "ask",
        rule: "command.unicode",
        reason: `the program name "${first.text}" has non-ASCII characters`,
      });
    }
    const unwrapped = unwrap(words);
    for (const finding of unwrapped.findings) this.add(finding);
    // `{rm,-rf,/}` is `rm -rf /` to bash: judge the brace-expanded words against the hardline too.
    if (words.some((word) => word.findings.some((finding) => finding.rule === "command.brace-expansion"))) {
      const expanded = words.flatMap((word) =>
        expandBraces(word.text).map((text) => ({ ...word, text, glob: word.glob || /[*?[]/.test(text) })),
      );
      for (const invocation of unwrap(expanded).invocations) {
        const hard = hardlineCheck(invocation, this.context);
        if (hard) this.add(hard);
      }
    }
    for (const invocation of unwrapped.invocations) {
      const hard = hardlineCheck(invocation, this.context);
      if (hard) this.add(hard);
    }
    for (const script of unwrapped.innerScripts)
      analyzeSource(script, this.context, this.fsApi, this.out, this.depth + 1);
    const final = unwrapped.invocations[unwrapped.invocations.length - 1];
    if (!final) return;
    const program = final.program;
    if (isShell(program) || interpreters.has(program)) {
      const nested = call.args.flatMap((word) => stmtsInWord(word));
      if ([...programsIn(nested, this.context)].some((name) => downloaders.has(name))) {
        this.add({
          decision: "deny",
          rule: "hardline.download-to-shell",
          reason: `downloaded code is handed to ${program}`,
        });
      }
    }
    for (const word of words.slice(1)) {
      if (!word.glob && word.exact) this.sensitiveArgument(word.text);
    }
    if (!final.words[0]?.exact) return;
    const written = final.words[0].text;
    if (written.includes("/") && !standardBinDirs.has(dirname(written))) {
      this.add({
        decision: "ask",
        rule: "command.program-path",
        reason: `${written} is not a standard system program`,
      });
    }
    const inlineFlags = interpreterInlineFlags[program];
    if (inlineFlags !== undefined || program === "source" || program === ".") {
      const args = final.words.slice(1).map((word) => word.text);
      const inline = inlineFlags?.some((flag) =>
        args.some((arg) => arg === flag || (flag.length === 2 && arg.startsWith(flag))),
      );
      if (inline || program === "awk" || program === "gawk" || program === "source" || program === ".") {
        this.add({
          decision: "ask",
          rule: "command.inline-code",
          reason: `${program} runs code given on the command line`,
        });
      } else if (!(args.length === 1 && ["--version", "-v", "-V"].includes(args[0] as string))) {
        this.add({
          decision: "ask",
          rule: "command.not-readonly",
          reason: `${program} runs a program, which can do anything`,
        });
      }
    }
    const judgement = judgeReadonly(final);
    for (const finding of judgement.findings) this.add(finding);
    // An argument the engine could not evaluate is already asked; its partial text is no path to check.
    if (judgement.findings.length > 0 || final.words.some((word) => !word.exact)) return;
    const globbed = final.words.slice(1).filter((word) => word.glob);
    for (const word of globbed) this.expandGlob(word.text);
    const globTexts = new Set(globbed.map((word) => word.text));
    for (const path of judgement.paths) {
      if (!globTexts.has(path)) this.pathFinding(path, "read", "command.path");
    }
    for (const dir of judgement.recursive) {
      if (globTexts.has(dir)) continue;
      const resolved = resolveReal(dir, this.context.cwd, this.context.home, this.fsApi);
      if (!resolved.ok) continue;
      const inside = sensitiveRoots(this.context.home, this.context.mercuryHome).find((root) =>
        isWithin(root, resolved.realPath),
      );
      if (inside) {
        this.add({
          decision: "ask",
          rule: "command.recursive-sensitive",
          reason: `${program} reads ${dir} recursively, which contains ${inside}`,
        });
      }
      if (judgement.followsLinks) {
        this.add({
          decision: "ask",
          rule: "command.follows-symlinks",
          reason: `${program} follows symlinks while reading ${dir} recursively; a link could lead outside the allowed folders`,
        });
      }
    }
  }

  /** Globs in the last path component are expanded here and every match is checked; others are asked. */
  private expandGlob(pattern: string): void {
    const slash = pattern.lastIndexOf("/");
    const dirPart = slash === -1 ? "." : pattern.slice(0, slash) || "/";
    const namePart = pattern.slice(slash + 1);
    if (/[*?[]/.test(dirPart) || namePart.includes("[") || namePart === "") {
      this.add({
        decision: "ask",
        rule: "command.glob",
        reason: `the glob ${pattern} cannot be checked before it runs`,
      });
      return;
    }
    const dirCheck = checkPath(dirPart, "read", this.context, this.fsApi);
    if (dirCheck.decision !== "allow") {
      this.add({ decision: dirCheck.decision, rule: dirCheck.rule, reason: dirCheck.reason });
      return;
    }
    const regex = new RegExp(
      `^${namePart
        .replace(/[.+^${}()|\\]/g, "\\$&")
        .replace(/\*/g, ".*")
        .replace(/\?/g, ".")}$`,
      "s",
    );
    const directory = dirCheck.resolvedPath ?? dirPart;
    let names: string[];
    try {
      names = existsSync(directory) ? readdirSync(directory) : [];
    } catch (error) {
      this.add({
        decision: "ask",
        rule: "command.glob",
        reason: `the glob ${pattern} could not be listed: ${String(error)}`,
      });
      return;
    }
    const matches = names.filter((name) => regex.test(name));
    if (matches.length > 2000) {
      this.add({
        decision: "ask",
        rule: "command.glob",
        reason: `the glob ${pattern} matches ${matches.length} files`,
      });
      return;
    }
    for (const name of matches) this.pathFinding(join(directory, name), "read", "command.path");
  }

  private pathFinding(path: string, access: "read" | "write", _origin: string): void {
    const decision = checkPath(path, access, this.context, this.fsApi);
    if (decision.decision === "allow") return;
    this.add({ decision: decision.decision, rule: decision.rule, reason: decision.reason });
  }

  private sensitive(text: string): void {
    const lexical = sensitiveMatch(
      text.startsWith("/") ? text : join(this.context.cwd, text),
      this.context.home,
      this.context.mercuryHome,
    );
    if (lexical)
      this.add({
        decision: "deny",
        rule: "path.sensitive",
        reason: `${text} is ${lexical.what}; it is off-limits in every mode`,
      });
  }

  /** Any argument naming a secret file is refused, whatever the program; also paths inside inline code. */
  private sensitiveArgument(text: string): void {
    const candidates = new Set<string>();
    const addCandidate = (raw: string) => {
      const value = raw.replace(/^@/, "");
      // A pattern such as '*.pem' names no file; globs that do run are expanded and checked elsewhere.
      if (value === "" || value.startsWith("-") || /[*?[]/.test(value)) return;
      candidates.add(value.startsWith("~/") || value === "~" ? this.context.home + value.slice(1) : value);
    };
    addCandidate(text);
    const equals = text.indexOf("=");
    if (equals > 0) addCandidate(text.slice(equals + 1));
    for (const match of text.matchAll(/(?:~|\$HOME|\$\{HOME\}|\/)[^\s'"`;|&<>(),]*/g)) {
      addCandidate(match[0].replace(/^\$\{?HOME\}?/, this.context.home));
    }
    for (const candidate of candidates) {
      const absolute = candidate.startsWith("/") ? candidate : join(this.context.cwd, candidate);
      let match = sensitiveMatch(absolute, this.context.home, this.context.mercuryHome);
      if (!match) {
        const resolved = resolveReal(candidate, this.context.cwd, this.context.home, this.fsApi);
        if (resolved.ok && resolved.exists)
          match = sensitiveMatch(resolved.realPath, this.context.home, this.context.mercuryHome);
      }
      if (match) {
        this.add({
          decision: "deny",
          rule: "path.sensitive",
          reason: `${candidate} is ${match.what}; it is off-limits in every mode`,
        });
        return;
      }
    }
  }
}

function flattenPipeline(command: Extract<Command, { type: "binary" }>): Stmt[] {
  const out: Stmt[] = [];
  const visit = (stmt: Stmt) => {
    const inner = stmt.command;
    if (inner?.type === "binary" && (inner.op === "|" || inner.op === "|&") && stmt.redirects.length === 0) {
      visit(inner.left);
      visit(inner.right);
    } else out.push(stmt);
  };
  visit(command.left);
  visit(command.right);
  return out;
}

/** The program that really runs in a statement (after sudo/env/... unwrapping), when it is a simple command. */
function finalProgram(stmt: Stmt, context: PermissionContext): string | null {
  if (stmt.command?.type !== "call" || stmt.command.args.length === 0) return null;
  const words = stmt.command.args.map((word) => evaluateWord(word, context));
  const invocations = unwrap(words).invocations;
  return invocations[invocations.length - 1]?.program ?? null;
}

/** Every program name run anywhere in these statements, through wrappers and substitutions. */
function programsIn(stmts: Stmt[], context: PermissionContext): Set<string> {
  const out = new Set<string>();
  const visitStmt = (stmt: Stmt) => {
    for (const redirect of stmt.redirects) if (redirect.word) stmtsInWord(redirect.word).forEach(visitStmt);
    const command = stmt.command;
    if (!command) return;
    if (command.type === "call") {
      for (const word of command.args) stmtsInWord(word).forEach(visitStmt);
      if (command.args.length === 0) return;
      const words = command.args.map((word) => evaluateWord(word, context));
      for (const invocation of unwrap(words).invocations) out.add(invocation.program);
      out.add(programName(words[0]));
    } else if (command.type === "binary") {
      visitStmt(command.left);
      visitStmt(command.right);
    } else if (command.type === "func") command.body.forEach(visitStmt);
    else {
      command.stmts.forEach(visitStmt);
      for (const word of command.words) stmtsInWord(word).forEach(visitStmt);
    }
  };
  stmts.forEach(visitStmt);
  return out;
}

/** Control characters other than tab and newline (a carriage return can hide text in a terminal). */
function hasControlCharacters(source: string): boolean {
  for (const char of source) {
    const code = char.charCodeAt(0);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a) || code === 0x7f) return true;
  }
  return false;
}

/** Bash brace expansion of comma lists (`{a,b}c` -> `ac bc`), enough to see through `{rm,-rf,/}`. */
export function expandBraces(text: string, depth = 0): string[] {
  const match = /\{([^{}]*,[^{}]*)\}/.exec(text);
  if (!match || depth > 8) return [text];
  const before = text.slice(0, match.index);
  const after = text.slice(match.index + match[0].length);
  const options = (match[1] as string).split(",");
  if (options.length > 64) return [text];
  return options.flatMap((option) => expandBraces(`${before}${option}${after}`, depth + 1));
}
