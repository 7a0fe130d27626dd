import { writtenBuildKey } from "./cargo-build.js";
import { callChecks } from "./command-call.js";
import { compoundChecks } from "./command-compound.js";
import { feedBuilder, inputWords } from "./command-feeds.js";
import type { PathScope } from "./command-paths.js";
import { redirectTargetChecks } from "./command-redirects.js";
import { type Analysis, hasControlCharacters, interpreters } from "./command-rules.js";
import { producedText, producedWords, shellReadsStdin } from "./command-stdin.js";
import {
  crontabCommands,
  escapedCommands,
  type StdinJudge,
  statementStdinJudge,
  stdinText,
} from "./command-stdin-runners.js";
import { finalProgram, flattenPipeline, programsIn } from "./command-structure.js";
import type { WalkScope } from "./command-walk-scope.js";
import type { PermissionContext } from "./context.js";
import { decoderOf, pipedText } from "./decoders.js";
import { downloaders } from "./hardline.js";
import { inlineCodeFindings } from "./inline-code.js";
import { type CreatedLink, withLinks } from "./link-overlay.js";
import { patchChecks } from "./patch-targets.js";
import { type PathFs, resolveReal } from "./paths.js";
import { makefileRecipes } from "./project-scripts.js";
import { type Command, parseShell, type Redirect, type Stmt, stmtsInWord } from "./shell-ast.js";
import { type EvaluatedWord, evaluateWord, type Finding } from "./shell-words.js";
import { catFedText, redirectedFileText } from "./stdin-files.js";
import { isShell, unwrap } from "./wrappers.js";
import { WrittenFiles } from "./written-files.js";

/** Walks the parsed command and records a finding for everything that stops it from being allowed. */
export function analyzeSource(
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
  // A substitution the converter has no field for (an array literal's elements) is still judged.
  if (parsed.substitutions.length > 0) {
    const seen = out.findings.some((finding) => /^command\.(process-)?substitution$/.test(finding.rule));
    if (!seen)
      out.findings.push({
        decision: "ask",
        rule: "command.substitution",
        reason: "the command runs command substitutions, whose output becomes part of the command",
      });
    for (const stmt of parsed.substitutions) new Walker(context, fsApi, out, depth).stmt(stmt);
  }
  return parsed.stmts;
}

class Walker {
  private readonly written = new WrittenFiles();

  constructor(
    /** Not readonly: a `cd` earlier in the command moves where later relative paths point. */
    private context: PermissionContext,
    /** Not readonly: a symlink made earlier in the command (`ln -s ~ h; cat h/…`) is part of the view. */
    private fsApi: PathFs,
    private readonly out: Analysis,
    private readonly depth: number,
  ) {}

  private scope(): PathScope {
    return { context: this.context, fsApi: this.fsApi, add: (finding) => this.add(finding) };
  }

  private walkScope(): WalkScope {
    return {
      ...this.scope(),
      depth: this.depth,
      innerDenies: (script) => this.innerDenies(script),
      inlineCode: (code, keep) => this.inlineCode(code, keep),
      analyze: (source, out) => {
        analyzeSource(source, this.context, this.fsApi, out, this.depth + 1);
      },
    };
  }

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
    this.patches(stmt);
    this.written.record(stmt, this.context);
    for (const [path, text] of this.written.entries()) {
      const buildKey = writtenBuildKey(path, text);
      if (buildKey) this.add(buildKey);
    }
    this.scriptOnStdin(stmt);
  }

  /** `git apply x.patch`, `patch -p1 < x.patch`: the files named inside the patch are write targets. */
  private patches(stmt: Stmt): void {
    if (stmt.command?.type !== "call" || stmt.command.args.length === 0) return;
    const words = stmt.command.args.map((word) => evaluateWord(word, this.context));
    const final = unwrap(words).invocations.at(-1);
    if (!final || (final.program !== "git" && final.program !== "patch")) return;
    const redirect = stmt.redirects.find((candidate) => candidate.op === "<" && candidate.word);
    const stdin = redirect?.word ? evaluateWord(redirect.word, this.context) : null;
    const args = final.words.slice(1).map((word) => word.text);
    patchChecks(final.program, args, stdin?.exact ? stdin.text : null, this.scope());
  }

  /**
   * `bash <<EOF … EOF`, `sh <<< 'rm -rf ~'`, `bash < script.sh`: the shell runs what arrives on its
   * standard input. That text is parsed and held to the hardline like any other command.
   */
  private scriptOnStdin(stmt: Stmt): void {
    if (stmt.command?.type !== "call" || stmt.command.args.length === 0) return;
    // The outermost program that reads its input: xargs in `xargs rm -rf <<< ~`, bash in `sudo bash <<EOF`.
    const judge = statementStdinJudge(stmt, this.context);
    if (!judge) return;
    // Pass 11: `bash < x.sh` after writing x.sh runs the written text; a list nobody can read is opaque.
    const fed = redirectedFileText(stmt, judge, this.context, this.written);
    if (fed.finding) this.add(fed.finding);
    const text = fed.text !== undefined ? fed.text : stdinText(stmt, this.context);
    if (text === null) return;
    if (judge === "builder") this.xargsWords(stmt, text);
    else this.judgeInput(judge, text);
  }

  /** Text a program reads on its input and runs, judged the way that program runs it. */
  private judgeInput(judge: Exclude<StdinJudge, "builder">, text: string): void {
    if (judge === "code") this.inlineCode(text);
    else if (judge === "crontab") this.innerDenies(crontabCommands(text));
    else if (judge === "escapes") this.innerDenies(escapedCommands(text));
    else if (judge === "makefile") this.innerDenies(makefileRecipes(text));
    else this.innerDenies(text);
  }

  /** Code for an interpreter: its literal shell commands, secret paths and deletions of home meet the hardline. */
  private inlineCode(code: string, keep: (finding: Finding) => boolean = () => true): void {
    if (this.depth > 3) return;
    inlineCodeFindings(code, {
      ...this.scope(),
      add: (finding) => {
        if (keep(finding)) this.add(finding);
      },
      analyzeShell: (script) => {
        const inner: Analysis = { findings: [] };
        analyzeSource(script, this.context, this.fsApi, inner, this.depth + 1);
        return inner.findings;
      },
    });
  }

  /** Judges shell text the engine reconstructed (stdin of a shell, a script file): its denials count. */
  private innerDenies(script: string | null): void {
    if (script === null || script.trim() === "" || this.depth > 3) return;
    const inner: Analysis = { findings: [] };
    analyzeSource(script, this.context, this.fsApi, inner, this.depth + 1);
    for (const finding of inner.findings) if (finding.decision === "deny") this.add(finding);
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
        compoundChecks(command, {
          scope: () => this.walkScope(),
          stmt: (stmt) => this.stmt(stmt),
          evaluate: (word) => this.evaluate(word),
          written: this.written,
        });
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
      const previous = index > 0 ? elements[index - 1] : undefined;
      const judge = previous && last !== null ? statementStdinJudge(element, this.context) : null;
      // Pass 11: `cat x.sh | sh` reads x.sh as this command leaves it; a file nobody can read is opaque.
      const catFed = previous ? catFedText(previous, judge, this.context, this.written) : {};
      if (previous && last !== null) {
        const fed =
          judge && judge !== "builder" && (!isShell(last) || shellReadsStdin(element, this.context));
        if (catFed.finding && (fed || judge === "builder")) this.add(catFed.finding);
        const text = !fed
          ? null
          : catFed.text !== undefined
            ? catFed.text
            : pipedText(elements, index - 1, this.context, (stmt) => producedText(stmt, this.context));
        if (text !== null && judge && judge !== "builder") this.judgeInput(judge, text);
        // `… | base64 -d | sh` with input nobody can read: the shell runs text unknown until it runs.
        // Pass 10: so does any pipe into a shell (or an interpreter reading its program) whose text
        // the engine cannot compute (`make cmds | sh`, `awk '{print "rm " $0}' | sh`), like `eval`.
        const readsProgram = isShell(last) || (judge === "code" && !hasOperands(element, this.context));
        if (fed && text === null && (decoderOf(previous, this.context) || readsProgram)) {
          this.add({
            decision: "ask",
            rule: "command.eval",
            reason: `text the engine cannot compute is piped into ${last}; what it runs cannot be read before it runs`,
          });
        }
      }
      if (previous) this.xargsFeed(element, previous, catFed.text);
      // `echo 'rm -rf ~' | tee run.sh`: what tee writes is what the previous command printed.
      if (previous) this.written.record(element, this.context, producedText(previous, this.context));
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

  /**
   * `echo ~ | xargs rm -rf`, `find ~ -print0 | xargs -0 rm -rf`: the words xargs appends come from the
   * previous command; when the engine can tell what they are, the command xargs builds is held to the
   * hardline with them.
   */
  private xargsFeed(element: Stmt, previous: Stmt, catText: string | null | undefined): void {
    const words = typeof catText === "string" ? inputWords(catText) : producedWords(previous, this.context);
    feedBuilder(element, words, this.walkScope());
  }

  /** `xargs rm -rf <<< ~`, `xargs rm -rf < list`: the words come from the command's own input. */
  private xargsWords(stmt: Stmt, text: string): void {
    feedBuilder(stmt, inputWords(text), this.walkScope());
  }

  private evaluate(word: Parameters<typeof evaluateWord>[0]): EvaluatedWord {
    const evaluated = evaluateWord(word, this.context);
    for (const finding of evaluated.findings) this.add(finding);
    for (const nested of stmtsInWord(word)) this.stmt(nested);
    return evaluated;
  }

  private redirect(redirect: Redirect): void {
    if (redirect.heredoc) this.evaluate(redirect.heredoc);
    if (redirect.word) redirectTargetChecks(redirect.op, this.evaluate(redirect.word), this.scope());
  }

  private call(call: Extract<Command, { type: "call" }>): void {
    const created: CreatedLink[] = [];
    try {
      callChecks(call, created, {
        walkScope: () => this.walkScope(),
        evaluate: (word) => this.evaluate(word),
        changeDirectory: (words) => this.changeDirectory(words),
        written: this.written,
        out: this.out,
      });
    } finally {
      this.fsApi = withLinks(this.fsApi, created);
    }
  }

  /** Follows `cd` so `cd / && rm -rf *` is judged as `rm -rf /*`. Subshell scoping is ignored (stricter). */
  private changeDirectory(words: EvaluatedWord[]): void {
    const operands = words.slice(1).filter((word) => !word.text.startsWith("-") || word.text === "-");
    const target = operands[0];
    if (words[0]?.text === "popd" || target?.text === "-" || (target && !target.exact)) {
      this.add({
        decision: "ask",
        rule: "command.expansion",
        reason: "the command changes to a directory the engine cannot know (cd -, popd or an expansion)",
      });
      return;
    }
    const destination = target ? target.text : this.context.home;
    const resolved = resolveReal(destination, this.context.cwd, this.context.home, this.fsApi);
    if (resolved.ok) this.context = { ...this.context, cwd: resolved.realPath };
  }
}

/** Whether the statement's program is given operands (a script file: its input is then data). */
function hasOperands(stmt: Stmt, context: PermissionContext): boolean {
  if (stmt.command?.type !== "call") return false;
  const words = stmt.command.args.map((word) => evaluateWord(word, context));
  const final = unwrap(words).invocations.at(-1);
  return (final?.words.slice(1) ?? []).some((word) => !word.text.startsWith("-"));
}
