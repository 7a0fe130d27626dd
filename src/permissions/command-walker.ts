import { dirname } from "node:path";
import { hostsNamed, needsNetwork } from "./command-network.js";
import { commandValuedOptions } from "./command-options.js";
import {
  expandGlob,
  globSecrets,
  type PathScope,
  pathFinding,
  sensitiveArgument,
  sensitiveTarget,
} from "./command-paths.js";
import {
  type Analysis,
  expandBraces,
  hasControlCharacters,
  interpreterInlineFlags,
  interpreters,
  standardBinDirs,
} from "./command-rules.js";
import { producedText, producedWords, readScript, shellReadsStdin } from "./command-stdin.js";
import { crontabCommands, parallelCommand, stdinJudge, stdinText } from "./command-stdin-runners.js";
import { finalProgram, flattenPipeline, programsIn } from "./command-structure.js";
import { isWithin, type PermissionContext } from "./context.js";
import { gitConfigRisk } from "./git-config.js";
import { downloaders, hardlineCheck, protectedWriteTarget, writeTargets } from "./hardline.js";
import { inlineCodeFindings } from "./inline-code.js";
import { type PathFs, resolveReal } from "./paths.js";
import { persistenceFinding } from "./persistence.js";
import { projectScriptText } from "./project-scripts.js";
import { judgeReadonly } from "./readonly.js";
import { sensitiveRoots } from "./sensitive.js";
import { type Command, parseShell, type Redirect, type Stmt, stmtsInWord } from "./shell-ast.js";
import { type EvaluatedWord, evaluateWord, type Finding } from "./shell-words.js";
import { secretInTree } from "./tree-secrets.js";
import { hasNonAscii } from "./unicode.js";
import { isShell, programName, unwrap } from "./wrappers.js";

/** Programs whose recursive mode reads the content of every file below a folder. */
const contentSearchers = new Set(["grep", "egrep", "fgrep", "rg", "diff"]);

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
  return parsed.stmts;
}

class Walker {
  constructor(
    /** Not readonly: a `cd` earlier in the command moves where later relative paths point. */
    private context: PermissionContext,
    private readonly fsApi: PathFs,
    private readonly out: Analysis,
    private readonly depth: number,
  ) {}

  private scope(): PathScope {
    return { context: this.context, fsApi: this.fsApi, add: (finding) => this.add(finding) };
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
    this.scriptOnStdin(stmt);
  }

  /**
   * `bash <<EOF … EOF`, `sh <<< 'rm -rf ~'`, `bash < script.sh`: the shell runs what arrives on its
   * standard input. That text is parsed and held to the hardline like any other command.
   */
  private scriptOnStdin(stmt: Stmt): void {
    if (stmt.command?.type !== "call" || stmt.command.args.length === 0) return;
    const words = stmt.command.args.map((word) => evaluateWord(word, this.context));
    // The outermost program that reads its input: xargs in `xargs rm -rf <<< ~`, bash in `sudo bash <<EOF`.
    const judge = unwrap(words)
      .invocations.map((invocation) => stdinJudge(invocation.program))
      .find((found) => found !== null);
    if (!judge) return;
    const text = stdinText(stmt, this.context);
    if (text === null) return;
    if (judge === "code") this.inlineCode(text);
    else if (judge === "crontab") this.innerDenies(crontabCommands(text));
    else if (judge === "builder") this.xargsWords(stmt, text);
    else this.innerDenies(text);
  }

  /** Code for an interpreter: its literal shell commands, secret paths and deletions of home meet the hardline. */
  private inlineCode(code: string): void {
    if (this.depth > 3) return;
    inlineCodeFindings(code, {
      ...this.scope(),
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
      const previous = index > 0 ? elements[index - 1] : undefined;
      if (previous && last !== null) {
        const judge = stdinJudge(last);
        const fed =
          judge && judge !== "builder" && (!isShell(last) || shellReadsStdin(element, this.context));
        const text = fed ? producedText(previous, this.context) : null;
        if (text !== null && judge === "code") this.inlineCode(text);
        else if (text !== null && judge === "crontab") this.innerDenies(crontabCommands(text));
        else if (text !== null) this.innerDenies(text);
      }
      if (previous) this.xargsFeed(element, previous);
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
  private xargsFeed(element: Stmt, previous: Stmt): void {
    this.feedBuilder(element, producedWords(previous, this.context));
  }

  /** `xargs rm -rf <<< ~`, `xargs rm -rf < list`: the words come from the command's own input. */
  private xargsWords(stmt: Stmt, text: string): void {
    const words = text
      .split(/[\s\0]+/)
      .filter((word) => word !== "")
      .map((word) => ({ text: word, exact: true, glob: false, findings: [] }));
    this.feedBuilder(stmt, words);
  }

  /** The command xargs or parallel builds, with the words fed to it, held to the hardline. */
  private feedBuilder(element: Stmt, fed: EvaluatedWord[]): void {
    if (element.command?.type !== "call" || element.command.args.length === 0 || fed.length === 0) return;
    const words = element.command.args.map((word) => evaluateWord(word, this.context));
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
    const hard = hardlineCheck({ ...built, words: commandWords }, this.context, this.fsApi);
    if (hard) this.add(hard);
    else this.innerDenies(commandWords.map((word) => shellQuote(word.text)).join(" "));
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
      pathFinding(this.scope(), target.text, "read", "command.redirect");
      return;
    }
    if (["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"].includes(target.text)) return;
    const hard = protectedWriteTarget(target.text, this.context, this.fsApi);
    if (hard) {
      this.add(hard);
      return;
    }
    sensitiveTarget(this.scope(), target.text);
    // A write outside the workspace is a person's call, never allow-all's (path.outside-roots).
    pathFinding(this.scope(), target.text, "write", "command.redirect");
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
        const hard = hardlineCheck(invocation, this.context, this.fsApi);
        if (hard) this.add(hard);
      }
      for (const word of expanded.slice(1)) {
        if (word.glob) globSecrets(this.scope(), word.text);
        else sensitiveArgument(this.scope(), word.text);
      }
    }
    for (const invocation of unwrapped.invocations) {
      const hard = hardlineCheck(invocation, this.context, this.fsApi);
      if (hard) this.add(hard);
    }
    for (const script of unwrapped.innerScripts)
      analyzeSource(script, this.context, this.fsApi, this.out, this.depth + 1);
    const runner = unwrapped.invocations[unwrapped.invocations.length - 1];
    if (runner && isShell(runner.program) && unwrapped.innerScripts.length === 0) {
      const scriptFile = runner.words
        .slice(1)
        .find((word) => !word.text.startsWith("-") && !word.text.startsWith("+"));
      if (scriptFile?.exact) this.innerDenies(readScript(scriptFile.text, this.context.cwd));
    }
    const final = unwrapped.invocations[unwrapped.invocations.length - 1];
    if (!final) return;
    const program = final.program;
    const finalArgs = final.words.slice(1).map((word) => word.text);
    if (needsNetwork(program, finalArgs)) {
      this.out.needsNetwork = true;
      this.out.hosts ??= new Set();
      for (const host of hostsNamed(finalArgs)) this.out.hosts.add(host);
    }
    if (program === "cd" || program === "pushd" || program === "popd") this.changeDirectory(final.words);
    for (const invocation of unwrapped.invocations) {
      const args = invocation.words.slice(1).map((word) => word.text);
      const persistence = persistenceFinding(invocation.program, args);
      if (persistence) this.add(persistence);
    }
    const scripts = projectScriptText(program, finalArgs, this.context.cwd);
    if (scripts !== null) for (const line of scripts.split("\n")) this.innerDenies(line);
    for (const invocation of unwrapped.invocations) {
      const valued = commandValuedOptions(
        invocation.program,
        invocation.words.slice(1).map((word) => word.text),
      );
      for (const script of valued.scripts) this.innerDenies(script);
      for (const code of valued.code) this.inlineCode(code);
    }
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
      if (!word.glob && word.exact) sensitiveArgument(this.scope(), word.text);
      // A glob is expanded against the real file system, and one that could match a secret is refused.
      if (word.glob && word.exact) globSecrets(this.scope(), word.text);
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
      // `-e CODE`, `-eCODE`, and a cluster ending in the flag (`perl -pe`, `ruby -ne`, `python3 -Ic`).
      const inline = inlineFlags?.some((flag) =>
        args.some(
          (arg) =>
            arg === flag ||
            (flag.length === 2 && arg.startsWith(flag)) ||
            (flag.length === 2 && new RegExp(`^-[A-Za-z]*${flag[1]}$`).test(arg)),
        ),
      );
      if (inline || program === "awk" || program === "gawk" || program === "source" || program === ".") {
        this.add({
          decision: "ask",
          rule: "command.inline-code",
          reason: `${program} runs code given on the command line`,
        });
        if (inline || program === "awk" || program === "gawk") this.inlineCode(args.join("\n"));
      } else if (!(args.length === 1 && ["--version", "-v", "-V"].includes(args[0] as string))) {
        this.add({
          decision: "ask",
          rule: "command.not-readonly",
          reason: `${program} runs a program, which can do anything`,
        });
      }
    }
    if (final.words.every((word) => word.exact && !word.glob)) {
      for (const target of writeTargets(final)) pathFinding(this.scope(), target, "write", "command.write");
    }
    const judgement = judgeReadonly(final);
    for (const finding of judgement.findings) this.add(finding);
    if (program === "git" && judgement.findings.length === 0) this.gitRepositoryConfig(judgement.git ?? {});
    if (judgement.findings.length > 0 && !isShell(program)) this.hiddenHardline(final.words);
    if (judgement.findings.length > 0) this.outsideOperands(final.words);
    // An argument the engine could not evaluate is already asked; its partial text is no path to check.
    if (judgement.findings.length > 0 || final.words.some((word) => !word.exact)) return;
    const globbed = final.words.slice(1).filter((word) => word.glob);
    for (const word of globbed) expandGlob(this.scope(), word.text);
    const globTexts = new Set(globbed.map((word) => word.text));
    for (const path of judgement.paths) {
      if (!globTexts.has(path)) pathFinding(this.scope(), path, "read", "command.path");
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
      } else if (contentSearchers.has(program)) {
        const hidden =
          program !== "rg" || finalArgs.some((arg) => arg === "--hidden" || /^-[A-Za-z.]*[u.]/.test(arg));
        const secret = secretInTree(resolved.realPath, this.context, { hidden });
        if (secret) {
          this.add({
            decision: "ask",
            rule: "command.recursive-sensitive",
            reason: `${program} reads every file below ${dir}, and ${secret.path} is ${secret.what}`,
          });
        }
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

  /**
   * A program the engine does not know may run its arguments (`strace -f rm -rf /`, `ssh host 'rm -rf /'`,
   * `tmux new 'mkfs …'`): every argument suffix and every multi-word argument is held to the hardline.
   * Read-only programs are not scanned, so `echo rm -rf /` stays harmless text.
   */
  /** A read-only git command still runs programs named in its effective configuration: ask then. */
  private gitRepositoryConfig(where: { chdir?: string; gitDir?: string }): void {
    let directory = this.context.cwd;
    if (where.chdir) {
      const resolved = resolveReal(where.chdir, this.context.cwd, this.context.home, this.fsApi);
      if (!resolved.ok) return;
      directory = resolved.realPath;
    }
    const risk = gitConfigRisk({
      directory,
      home: this.context.home,
      env: this.context.env,
      ...(where.gitDir ? { gitDir: where.gitDir } : {}),
    });
    if (risk) {
      this.add({
        decision: "ask",
        rule: "command.git-repo-config",
        reason: `${risk.configPath} makes git run programs (${risk.keys.join(", ")}); git configuration can run anything`,
      });
    }
  }

  /**
   * A command that is not read-only and names an existing path outside the workspace (`tar czf x ~`,
   * `node /elsewhere/x.js`) reaches outside it: asked (path.outside-roots), never settled by allow-all.
   */
  private outsideOperands(words: EvaluatedWord[]): void {
    for (const word of words.slice(1)) {
      if (!word.exact || word.glob || word.text.startsWith("-") || !/^(\/|~|\.)|\//.test(word.text)) continue;
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(word.text) || /^[^/]*:/.test(word.text)) continue;
      const resolved = resolveReal(word.text, this.context.cwd, this.context.home, this.fsApi);
      if (!resolved.ok || !resolved.exists) continue;
      const roots = [...this.context.writeRoots, ...this.context.readRoots];
      if (roots.some((root) => isWithin(resolved.realPath, root))) continue;
      this.add({
        decision: "ask",
        rule: "path.outside-roots",
        reason: `${word.text} (${resolved.realPath}) is outside the workspace`,
      });
      return;
    }
  }

  private hiddenHardline(words: EvaluatedWord[]): void {
    for (let index = 1; index < words.length; index++) {
      const suffix = words.slice(index);
      const hard = hardlineCheck(
        { words: suffix, program: programName(suffix[0]), via: [] },
        this.context,
        this.fsApi,
      );
      if (hard) {
        this.add(hard);
        return;
      }
    }
    for (const word of words.slice(1)) {
      if (!word.exact || !/\s/.test(word.text) || this.depth > 2) continue;
      const inner: Analysis = { findings: [] };
      analyzeSource(word.text, this.context, this.fsApi, inner, this.depth + 1);
      const hard = inner.findings.find((finding) => finding.rule.startsWith("hardline."));
      if (hard) {
        this.add(hard);
        return;
      }
    }
  }
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
