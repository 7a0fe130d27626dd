import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { checkChangeFindings } from "./check-targets.js";
import { expandGlob, pathFinding } from "./command-paths.js";
import { type Analysis, awkPrograms, interpreterInlineFlags, standardBinDirs } from "./command-rules.js";
import type { WalkScope } from "./command-walk-scope.js";
import { isWithin } from "./context.js";
import { gitConfigRisk } from "./git-config.js";
import { hardlineCheck, writeTargets } from "./hardline.js";
import { ownEntry } from "./own-key.js";
import { resolveReal } from "./paths.js";
import { judgeReadonly } from "./readonly.js";
import { isEnvFile, isPackageToolConfig, sensitiveRoots } from "./sensitive.js";
import type { EvaluatedWord } from "./shell-words.js";
import { secretInTree } from "./tree-secrets.js";
import { type Invocation, isShell, programName } from "./wrappers.js";

/**
 * Checks on the program that really runs (after wrappers): interpreters given code, the read-only
 * allowlist with the paths it names, recursive reads, git's effective configuration, operands
 * outside the workspace, and a hardline command hidden in the arguments of an unknown program.
 */

/** Programs whose recursive mode reads the content of every file below a folder. */
const contentSearchers = new Set(["grep", "egrep", "fgrep", "rg", "diff"]);

export function interpreterChecks(final: Invocation, scope: WalkScope): void {
  const program = final.program;
  const written = final.words[0]?.text ?? "";
  if (written.includes("/") && !standardBinDirs.has(dirname(written))) {
    scope.add({
      decision: "ask",
      rule: "command.program-path",
      reason: `${written} is not a standard system program`,
    });
  }
  const inlineFlags = ownEntry(interpreterInlineFlags, program);
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
    if (inline || awkPrograms.has(program) || program === "source" || program === ".") {
      scope.add({
        decision: "ask",
        rule: "command.inline-code",
        reason: `${program} runs code given on the command line`,
      });
      if (inline || awkPrograms.has(program)) scope.inlineCode(args.join("\n"));
    } else if (!(args.length === 1 && ["--version", "-v", "-V"].includes(args[0] as string))) {
      scope.add({
        decision: "ask",
        rule: "command.not-readonly",
        reason: `${program} runs a program, which can do anything`,
      });
    }
  }
}

export function readonlyChecks(final: Invocation, scope: WalkScope): void {
  const program = final.program;
  const finalArgs = final.words.slice(1).map((word) => word.text);
  if (final.words.every((word) => word.exact)) {
    // A glob target (`truncate -s0 ~/*`, `chmod +x .git/hooks/*`) writes in the folder its fixed part names.
    const targets = writeTargets(final);
    for (const target of targets) pathFinding(scope, globFolder(target), "write", "command.write");
    checkChangeFindings(final, targets, scope);
  }
  const judgement = judgeReadonly(final);
  for (const finding of judgement.findings) scope.add(finding);
  if (program === "git" && judgement.findings.length === 0) gitRepositoryConfig(judgement.git ?? {}, scope);
  if (judgement.findings.length > 0 && !isShell(program)) hiddenHardline(final.words, scope);
  if (judgement.findings.length > 0) outsideOperands(final.words, scope);
  // An argument the engine could not evaluate is already asked; its partial text is no path to check.
  if (judgement.findings.length > 0 || final.words.some((word) => !word.exact)) return;
  const globbed = final.words.slice(1).filter((word) => word.glob);
  for (const word of globbed) expandGlob(scope, word.text);
  const globTexts = new Set(globbed.map((word) => word.text));
  for (const path of judgement.paths) {
    if (!globTexts.has(path)) pathFinding(scope, path, "read", "command.path");
  }
  for (const dir of judgement.recursive) {
    if (globTexts.has(dir)) continue;
    const resolved = resolveReal(dir, scope.context.cwd, scope.context.home, scope.fsApi);
    if (!resolved.ok) continue;
    const inside = sensitiveRoots(scope.context.home, scope.context.mercuryHome).find((root) =>
      isWithin(root, resolved.realPath),
    );
    if (inside) {
      scope.add({
        decision: "ask",
        rule: "command.recursive-sensitive",
        reason: `${program} reads ${dir} recursively, which contains ${inside}`,
      });
    } else if (contentSearchers.has(program)) {
      const hidden =
        program !== "rg" || finalArgs.some((arg) => arg === "--hidden" || /^-[A-Za-z.]*[u.]/.test(arg));
      const secret = secretInTree(resolved.realPath, scope.context, { hidden });
      if (secret?.hardLink) {
        scope.add({
          decision: "deny",
          rule: "path.sensitive",
          reason: `${program} reads every file below ${dir}, and ${secret.path} is ${secret.what}; off-limits in every mode`,
        });
      } else if (secret) {
        scope.add({
          decision: "ask",
          rule: "command.recursive-sensitive",
          reason: `${program} reads every file below ${dir}, and ${secret.path} is ${secret.what}`,
        });
      }
    }
    if (judgement.followsLinks) {
      scope.add({
        decision: "ask",
        rule: "command.follows-symlinks",
        reason: `${program} follows symlinks while reading ${dir} recursively; a link could lead outside the allowed folders`,
      });
    }
  }
}

/** A read-only git command still runs programs named in its effective configuration: ask then. */
export function gitRepositoryConfig(where: { chdir?: string; gitDir?: string }, scope: WalkScope): void {
  let directory = scope.context.cwd;
  if (where.chdir) {
    const resolved = resolveReal(where.chdir, scope.context.cwd, scope.context.home, scope.fsApi);
    if (!resolved.ok) return;
    directory = resolved.realPath;
  }
  const risk = gitConfigRisk({
    directory,
    home: scope.context.home,
    env: scope.context.env,
    ...(where.gitDir ? { gitDir: where.gitDir } : {}),
  });
  if (risk) {
    scope.add({
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
export function outsideOperands(words: EvaluatedWord[], scope: WalkScope): void {
  for (const word of words.slice(1)) {
    if (!word.exact || word.glob) continue;
    // `--log-file=/x`, `-o/x`: an option's value is a path like an operand (`valgrind --log-file=~/.bashrc`).
    const spelled = word.text.startsWith("-")
      ? (/^--[\w-]+=(.+)$/.exec(word.text)?.[1] ?? /^-[a-zA-Z]([/~@].*)$/.exec(word.text)?.[1] ?? "")
      : word.text;
    for (const text of namedFiles(spelled)) {
      if (text === "" || (!/^(\/|~|\.)|\//.test(text) && !isEnvFile(text))) continue;
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^[^/]*:/.test(text)) continue;
      const resolved = resolveReal(text, scope.context.cwd, scope.context.home, scope.fsApi);
      if (!resolved.ok) continue;
      // A project's `.env` handed to a program that is not read-only (`curl -T .env`, `scp .env host:`,
      // `base64 .env`) is read like `cat .env`: a person's call (pass 10).
      if (resolved.exists && (isEnvFile(resolved.realPath) || isPackageToolConfig(resolved.realPath))) {
        scope.add({
          decision: "ask",
          rule: "path.env-file",
          reason: `${text} (${resolved.realPath}) usually holds secrets, and the command reads it`,
        });
        return;
      }
      // A file not there yet counts when it is spelled from `/` or `~` and its folder exists: the command
      // would create it there (`git bundle create ~/x.bundle`, `strace -o ~/log ls`).
      if (!resolved.exists && !(/^[/~]/.test(text) && parentExists(resolved.realPath))) continue;
      const roots = [...scope.context.writeRoots, ...scope.context.readRoots];
      if (roots.some((root) => isWithin(resolved.realPath, root))) continue;
      scope.add({
        decision: "ask",
        rule: "path.outside-roots",
        reason: `${text} (${resolved.realPath}) is outside the workspace`,
      });
      return;
    }
  }
}

/**
 * The files a word makes a program read: the word itself; after curl's `@`/`<` (`-d @.env`,
 * `-F f=@/etc/passwd`); pass 11: `name@file` (`--data-urlencode name@.env`, httpie `field@.env`),
 * httpie's `field:=@file`, and curl's `{a,b}` upload lists (`-T '{.env,README.md}'`).
 */
function namedFiles(spelled: string): string[] {
  if (/^@./.test(spelled)) return [spelled.slice(1)];
  const fielded = /^[\w.-]+(?:=|:=)?[@<](.+)$/.exec(spelled)?.[1];
  if (fielded !== undefined) return [fielded];
  const listed = /^\{([^{}]*)\}$/.exec(spelled)?.[1];
  if (listed !== undefined) return listed.split(",");
  return [spelled];
}

function parentExists(path: string): boolean {
  return existsSync(dirname(path));
}

/**
 * A program the engine does not know may run its arguments (`strace -f rm -rf /`, `ssh host 'rm -rf /'`,
 * `tmux new 'mkfs …'`): every argument suffix and every multi-word argument is held to the hardline.
 * Read-only programs are not scanned, so `echo rm -rf /` stays harmless text.
 */
export function hiddenHardline(words: EvaluatedWord[], scope: WalkScope): void {
  for (let index = 1; index < words.length; index++) {
    const suffix = words.slice(index);
    const hard = hardlineCheck(
      { words: suffix, program: programName(suffix[0]), via: [] },
      scope.context,
      scope.fsApi,
    );
    if (hard) {
      scope.add(hard);
      return;
    }
  }
  for (const word of words.slice(1)) {
    if (!word.exact || !/\s/.test(word.text) || scope.depth > 2) continue;
    for (const text of commandTexts(word.text)) {
      const inner: Analysis = { findings: [] };
      scope.analyze(text, inner);
      const hard = inner.findings.find((finding) => finding.rule.startsWith("hardline."));
      if (hard) {
        scope.add(hard);
        return;
      }
    }
  }
}

/**
 * The ways an argument can carry a shell command: as it is, as an option's value
 * (`--unzip-command=rm -rf ~`), behind a shell escape (`!rm -rf ~` for gdb/ed/less, `.shell …` for
 * sqlite3, `\! …` for psql, `system …` for mysql).
 */
export function commandTexts(text: string): string[] {
  const texts = new Set([text]);
  const equals = text.indexOf("=");
  if (text.startsWith("-") && equals > 0) texts.add(text.slice(equals + 1));
  for (const candidate of [...texts]) {
    const escaped = shellEscape(candidate);
    if (escaped !== null) texts.add(escaped);
  }
  return [...texts];
}

/** The command behind an interactive tool's shell escape on one line, or null. */
export function shellEscape(line: string): string | null {
  const match = /^\s*(?:\.(?:shell|system)\s+|\\!\s*|:*\s*!\s*|(?:system|shell)\s+)(.+)$/s.exec(line);
  if (match?.[1]) return match[1];
  const m4 = /\be?syscmd\((.+)\)/s.exec(line);
  if (m4?.[1]) return m4[1];
  // sqlite3 reads from or writes to a command when the file name starts with `|`:
  // `.read '|cmd'`, `.output |cmd`, `.once '|cmd'`, `.import '|cmd' table`.
  const piped = /^\s*\.(?:read|output|once|import|excel)\s+(?:(['"])\|(.*?)\1|\|(.*))/s.exec(line);
  return piped ? (piped[2] ?? piped[3] ?? null) : null;
}

/** A path as written, or for a glob the folder its fixed leading part names (`~/*` is `~`, `*.ts` is `.`). */
function globFolder(target: string): string {
  const at = target.search(/[*?[]/);
  if (at < 0) return target;
  const fixed = target.slice(0, at);
  const slash = fixed.lastIndexOf("/");
  if (slash < 0) return ".";
  return slash === 0 ? "/" : fixed.slice(0, slash);
}
