import { basename } from "node:path";
import { archiveExtractionChecks } from "./archive-extraction.js";
import { editedBuildKey } from "./cargo-build.js";
import { parallelOperands } from "./command-feeds.js";
import { hostsNamed, needsNetwork } from "./command-network.js";
import { interpreterChecks, outsideOperands, readonlyChecks } from "./command-operands.js";
import { commandValuedOptions, gitEnvironmentScripts } from "./command-options.js";
import { globSecrets, pathFinding, sensitiveArgument } from "./command-paths.js";
import { type Analysis, expandBraces, interpreters } from "./command-rules.js";
import { processSubstitutionText, readScript } from "./command-stdin.js";
import { stdinJudge } from "./command-stdin-runners.js";
import { programsIn } from "./command-structure.js";
import type { WalkScope } from "./command-walk-scope.js";
import { configWriteFindings } from "./config-writers.js";
import { embeddedWriteTargets } from "./embedded-writes.js";
import { gitDiscardFinding, gitEnvironmentOptions, gitPlaceVariable } from "./git-discards.js";
import { downloaders, hardlineCheck, protectedWriteTarget } from "./hardline.js";
import { assignedNames, injectedLibraryFinding, loadedBuiltinFinding } from "./injected-code.js";
import { type CreatedLink, linksCreatedBy } from "./link-overlay.js";
import { subscriptScripts } from "./name-subscripts.js";
import { persistenceFinding } from "./persistence.js";
import { powershellFindings, powershellPrograms } from "./powershell-code.js";
import { programFileChecks, unknownFileRun } from "./program-file-checks.js";
import { commandEnvironment, originChecks, startupOriginChecks } from "./program-origins.js";
import { projectScriptText } from "./project-scripts.js";
import { type Command, stmtsInWord, type Word } from "./shell-ast.js";
import type { EvaluatedWord, Finding } from "./shell-words.js";
import { toolStateFinding } from "./tool-state.js";
import { hasNonAscii } from "./unicode.js";
import { type Invocation, isShell, unwrap, variableScript } from "./wrappers.js";
import type { WrittenFiles } from "./written-files.js";

/** What judging one simple command needs from the walker that meets it. */
export interface CallWalk {
  /** The walk's scope as it is now: its context moves with each `cd` the walk follows. */
  walkScope(): WalkScope;
  /** Evaluates a word, recording its findings and walking the commands substituted into it. */
  evaluate(word: Word): EvaluatedWord;
  /** Follows `cd`, `pushd` and `popd` for the commands after this one. */
  changeDirectory(words: EvaluatedWord[]): void;
  /** Files earlier commands in the walk wrote, and their text. */
  written: WrittenFiles;
  /** Where the walk records its findings and the network it needs. */
  out: Analysis;
}

/**
 * Judges one simple command (a call): its assignments, its program and words against the hardline, the
 * scripts and code it hands on, the network it needs and the directory it moves to.
 */
export function callChecks(
  call: Extract<Command, { type: "call" }>,
  created: CreatedLink[],
  walk: CallWalk,
): void {
  // Read afresh at each use: a `cd` in a substitution or in this call moves the context mid-walk.
  const scope = (): WalkScope => walk.walkScope();
  for (const assign of call.assigns) {
    if (assign.value) {
      const value = walk.evaluate(assign.value);
      // `GIT_SSH_COMMAND='rm -rf ~' git fetch`: variables whose value a program runs as a command.
      const script = value.exact ? variableScript(assign.name, value.text) : null;
      if (script !== null) scope().innerDenies(script);
      if (value.exact) startupFileChecks(assign.name, value.text, walk, scope());
      if (value.exact) gitPlaceVariable(assign.name, value.text, scope());
    }
    scope().add({
      decision: "ask",
      rule: "command.assignment",
      reason: `the command sets ${assign.name}, which can change what runs`,
    });
    const injected = injectedLibraryFinding(assign.name);
    if (injected) scope().add(injected);
  }
  if (call.args.length === 0) return;
  const words = call.args.map((word) => walk.evaluate(word));
  const first = words[0] as EvaluatedWord;
  if (hasNonAscii(first.text)) {
    scope().add({
      decision: "ask",
      rule: "command.unicode",
      reason: `the program name "${first.text}" has non-ASCII characters`,
    });
  }
  const unwrapped = unwrap(words);
  for (const finding of unwrapped.findings) scope().add(finding);
  for (const invocation of unwrapped.invocations) {
    const args = invocation.words.slice(1).map((word) => word.text);
    if (invocation.program === "ln") created.push(...linksCreatedBy(args, scope().context, scope().fsApi));
    // `cp -rs ~ m` mirrors a tree as symlinks: for what later words reach, `m` is a link to `~`.
    if (
      invocation.program === "cp" &&
      args.some((arg) => arg === "--symbolic-link" || /^-[a-zA-Z]*s/.test(arg))
    )
      created.push(
        ...linksCreatedBy(
          ["-s", ...args.filter((arg) => !arg.startsWith("-"))],
          scope().context,
          scope().fsApi,
        ),
      );
  }
  // `{rm,-rf,/}` is `rm -rf /` to bash: judge the brace-expanded words against the hardline too.
  if (words.some((word) => word.findings.some((finding) => finding.rule === "command.brace-expansion"))) {
    const expanded = words.flatMap((word) =>
      expandBraces(word.text).map((text) => ({ ...word, text, glob: word.glob || /[*?[]/.test(text) })),
    );
    for (const invocation of unwrap(expanded).invocations) {
      const hard = hardlineCheck(invocation, scope().context, scope().fsApi);
      if (hard) scope().add(hard);
    }
    for (const word of expanded.slice(1)) {
      if (word.glob) globSecrets(scope(), word.text);
      else sensitiveArgument(scope(), word.text);
    }
  }
  for (const invocation of unwrapped.invocations) {
    const hard = hardlineCheck(invocation, scope().context, scope().fsApi);
    if (hard) scope().add(hard);
  }
  for (const script of unwrapped.innerScripts) scope().analyze(script, walk.out);
  for (const invocation of unwrapped.invocations) parallelOperands(invocation, scope());
  // `bash <(echo 'rm -rf ~')`, `source <(curl …)`, `python3 <(printf …)`: a substituted script file.
  const reader = unwrapped.invocations[unwrapped.invocations.length - 1]?.program ?? "";
  const runsFile = isShell(reader) || reader === "source" || reader === ".";
  if (runsFile || stdinJudge(reader) === "code") {
    for (const arg of call.args) {
      const text = processSubstitutionText(arg, scope().context);
      if (text === null) continue;
      if (runsFile) scope().innerDenies(text);
      else scope().inlineCode(text);
    }
  }
  const runner = unwrapped.invocations[unwrapped.invocations.length - 1];
  // `sh x.sh`, and `source x.sh`/`. ./x.sh`, which run it in this shell.
  const sources = runner?.program === "source" || runner?.program === ".";
  if (runner && (isShell(runner.program) || sources) && unwrapped.innerScripts.length === 0) {
    const scriptFile = runner.words
      .slice(1)
      .find((word) => !word.text.startsWith("-") && !word.text.startsWith("+"));
    if (scriptFile?.exact && walk.written.unknown(scriptFile.text, scope().context.cwd))
      scope().add(unknownFileRun(scriptFile.text));
    if (scriptFile?.exact)
      scope().innerDenies(
        walk.written.text(scriptFile.text, scope().context.cwd) ??
          readScript(scriptFile.text, scope().context.cwd),
      );
  }
  const final = unwrapped.invocations[unwrapped.invocations.length - 1];
  if (!final) return;
  scriptFileChecks(final, walk, scope());
  const program = final.program;
  const finalArgs = final.words.slice(1).map((word) => word.text);
  if (needsNetwork(program, finalArgs)) {
    walk.out.needsNetwork = true;
    walk.out.hosts ??= new Set();
    for (const host of hostsNamed(finalArgs)) walk.out.hosts.add(host);
  }
  if (program === "cd" || program === "pushd" || program === "popd") walk.changeDirectory(final.words);
  if (powershellPrograms.has(program)) {
    const cwd = scope().context.cwd;
    powershellFindings(
      program,
      finalArgs,
      scope(),
      (file) => walk.written.script(file, cwd) ?? readScript(file, cwd),
    );
  }
  // `alias x='rm -rf ~'` then `x`: dash expands aliases in scripts, so an alias's text is a command.
  if (program === "alias")
    for (const arg of finalArgs) if (arg.includes("=")) scope().innerDenies(arg.slice(arg.indexOf("=") + 1));
  for (const invocation of unwrapped.invocations) {
    const args = invocation.words.slice(1).map((word) => word.text);
    if (/^(export|declare|typeset|readonly|local|env)$/.test(invocation.program))
      for (const arg of args) {
        const equals = arg.indexOf("=");
        if (equals > 0) gitPlaceVariable(arg.slice(0, equals), arg.slice(equals + 1), scope());
      }
    const subscripts = subscriptScripts(invocation.program, args);
    for (const finding of subscripts.findings) scope().add(finding);
    for (const script of subscripts.scripts) scope().innerDenies(script);
    if (invocation.program === "git") {
      const discard = gitDiscardFinding(args, scope());
      if (discard) scope().add(discard);
    }
    const loaded = loadedBuiltinFinding(invocation.program, args);
    if (loaded) scope().add(loaded);
    if (/^(export|declare|typeset|readonly|local|env|sudo)$/.test(invocation.program))
      for (const name of assignedNames(args)) {
        const injected = injectedLibraryFinding(name);
        if (injected) scope().add(injected);
      }
    const persistence = persistenceFinding(invocation.program, args);
    if (persistence) scope().add(persistence);
    const toolState = toolStateFinding(invocation.program, args);
    if (toolState) scope().add(toolState);
    configWriteFindings(invocation.program, args, scope());
  }
  for (const line of walk.written.runBy(program, finalArgs, scope().context.cwd)) scope().innerDenies(line);
  const scripts = projectScriptText(program, finalArgs, scope().context.cwd);
  if (scripts !== null) for (const line of scripts.split("\n")) scope().innerDenies(line);
  const environment = commandEnvironment(call.assigns, unwrapped.invocations, scope().context);
  startupOriginChecks(environment, program, walk.written, scope());
  if (program === "git") {
    for (const script of gitEnvironmentScripts(environment, finalArgs)) scope().innerDenies(script);
    gitPlaceChecks(environment, final, scope());
  }
  for (const invocation of unwrapped.invocations) {
    programFileChecks(invocation, unwrapped.invocations, walk.written, scope());
    originChecks(invocation, walk.written, scope());
    archiveExtractionChecks(invocation, scope());
    const buildKey = editedBuildKey(invocation);
    if (buildKey) scope().add(buildKey);
  }
  for (const invocation of unwrapped.invocations) {
    const valued = commandValuedOptions(
      invocation.program,
      invocation.words.slice(1).map((word) => word.text),
    );
    for (const script of valued.scripts) scope().innerDenies(script);
    for (const code of valued.code) scope().inlineCode(code);
  }
  if (isShell(program) || interpreters.has(program)) {
    const nested = call.args.flatMap((word) => stmtsInWord(word));
    if ([...programsIn(nested, scope().context)].some((name) => downloaders.has(name))) {
      scope().add({
        decision: "deny",
        rule: "hardline.download-to-shell",
        reason: `downloaded code is handed to ${program}`,
      });
    }
  }
  for (const word of words.slice(1)) {
    if (!word.glob && word.exact) sensitiveArgument(scope(), word.text);
    // A glob is expanded against the real file system, and one that could match a secret is refused.
    if (word.glob && word.exact) globSecrets(scope(), word.text);
  }
  if (!final.words[0]?.exact) return;
  const finalScope = scope();
  interpreterChecks(final, finalScope);
  readonlyChecks(final, finalScope);
  // A wrapper's own words (`strace -o ~/log`, `valgrind --log-file=~/x`, `time -o /x`): a path outside
  // the workspace there is reached whatever the wrapped program is.
  unwrapped.invocations.slice(0, -1).forEach((wrapper, index) => {
    const inner = unwrapped.invocations[index + 1];
    if (!inner || !wrapper.words.every((word) => word.exact)) return;
    outsideOperands(wrapper.words.slice(0, wrapper.words.length - inner.words.length), finalScope);
  });
  for (const target of embeddedWriteTargets(program, finalArgs)) {
    const hard = protectedWriteTarget(target, finalScope.context, finalScope.fsApi);
    if (hard) finalScope.add(hard);
    else pathFinding(finalScope, target, "write", "command.write");
  }
}

/**
 * A script file run by its path (`./run.sh`) or given to an interpreter (`python3 x.py`, `node
 * build.js`): its text, written earlier in this command or already on disk, meets the hardline like a
 * shell's script file does. A file with a non-shell `#!` line is read as interpreter code.
 */
function scriptFileChecks(final: Invocation, walk: CallWalk, scope: WalkScope): void {
  const argv0 = final.words[0];
  const cwd = scope.context.cwd;
  if (argv0?.exact && argv0.text.includes("/") && walk.written.unknown(argv0.text, cwd))
    scope.add(unknownFileRun(argv0.text));
  if (argv0?.exact && argv0.text.includes("/")) {
    const text = walk.written.script(argv0.text, cwd);
    if (text !== null) {
      const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
      const runner = shebang
        ? basename((shebang[1] ?? "").endsWith("/env") ? (shebang[2] ?? "") : (shebang[1] ?? ""))
        : "sh";
      if (isShell(runner)) scope.innerDenies(text);
      else scope.inlineCode(text, hardlineOnly);
    }
  }
  if (stdinJudge(final.program) !== "code") return;
  const args = final.words.slice(1);
  // Files loaded before the program or the inline code: `node -r ./x.js`, `ruby -r ./x.rb -e 1`.
  for (const preload of preloadedFiles(
    final.program,
    args.map((word) => word.text),
  )) {
    const text = walk.written.script(preload, cwd) ?? walk.written.script(`${preload}.rb`, cwd);
    if (text !== null) scope.inlineCode(text, hardlineOnly);
  }
  if (args.some((word) => /^-[a-zA-Z]*[mce]$|^--eval$/.test(word.text))) return;
  const file = args.find((word) => !word.text.startsWith("-"));
  if (!file?.exact) return;
  if (walk.written.unknown(file.text, cwd)) scope.add(unknownFileRun(file.text));
  const text = walk.written.script(file.text, cwd);
  if (text !== null) scope.inlineCode(text, hardlineOnly);
}

/**
 * Files an interpreter loads as code before its program: node's `-r`/`--require`/`--import`/
 * `--loader`, ruby's `-r`, php's `-d auto_prepend_file=` and `auto_append_file=`.
 */
function preloadedFiles(program: string, args: string[]): string[] {
  const files: string[] = [];
  const options =
    program === "node" || program === "bun"
      ? ["-r", "--require", "--import", "--loader", "--experimental-loader", "--preload"]
      : program === "ruby"
        ? ["-r"]
        : [];
  args.forEach((arg, index) => {
    for (const option of options) {
      if (arg === option && args[index + 1] !== undefined) files.push(args[index + 1] as string);
      else if (option.startsWith("--") && arg.startsWith(`${option}=`))
        files.push(arg.slice(option.length + 1));
      else if (option.length === 2 && arg.startsWith(option) && arg.length > 2) files.push(arg.slice(2));
    }
    if (program === "php") {
      const setting = /^(?:-d)?auto_(?:prepend|append)_file=(.+)$/.exec(arg);
      if (setting?.[1]) files.push(setting[1]);
    }
  });
  return files;
}

/**
 * `GIT_WORK_TREE=~ git clean -fdx`: judged as `git --work-tree=~ clean -fdx` by the hardline, and a
 * tree or repository outside the workspace named by a variable is a person's call.
 */
function gitPlaceChecks(environment: Map<string, string>, final: Invocation, scope: WalkScope): void {
  for (const [name, value] of environment) gitPlaceVariable(name, value, scope);
  const options = gitEnvironmentOptions(environment);
  if (options.length === 0) return;
  const [program, ...rest] = final.words;
  if (!program) return;
  const words = [
    program,
    ...options.map((text) => ({ text, exact: true, glob: false, findings: [] })),
    ...rest,
  ];
  const hard = hardlineCheck({ ...final, words }, scope.context, scope.fsApi);
  if (hard) scope.add(hard);
}

/**
 * A whole program file is judged for deletions of `/`, the home folder or system folders only: the
 * heuristics meant for one-line code misread real files (a message "shutdown in progress" read as a
 * command, a write plus a mention of MERCURY_HOME, a secret's name in a string). Measured on 1,900
 * files of node_modules and Python's standard library: no denial with this rule, 18 with every hardline.
 */
function hardlineOnly(finding: Finding): boolean {
  return (
    finding.decision === "deny" &&
    (finding.rule === "hardline.rm-root" || finding.rule === "hardline.chmod-root")
  );
}

/**
 * A startup file named by a variable and written earlier in this command (`echo … > e.sh;
 * BASH_ENV=e.sh bash -c true`), and the modules `NODE_OPTIONS` preloads (`--require ./x.js`).
 */
function startupFileChecks(name: string, value: string, walk: CallWalk, scope: WalkScope): void {
  const cwd = scope.context.cwd;
  if (name === "BASH_ENV" || name === "ENV") scope.innerDenies(walk.written.text(value, cwd) ?? null);
  // `PERL5OPT='-Mstrict;system("rm -rf ~")'`: perl turns `-M` into `use …;` code before the program.
  if (name === "PERL5OPT") scope.inlineCode(value, (finding) => finding.decision === "deny");
  if (name !== "NODE_OPTIONS") return;
  const words = value.split(/\s+/);
  words.forEach((word, index) => {
    const inline = /^--(?:require|import)=(.+)$/.exec(word)?.[1];
    const file = inline ?? (/^(?:-r|--require|--import)$/.test(word) ? words[index + 1] : undefined);
    const text = file ? walk.written.script(file, cwd) : null;
    if (text !== null) scope.inlineCode(text, hardlineOnly);
  });
}
