import { ownEntry } from "./own-key.js";
import { judgeGit } from "./readonly-git.js";
import { judgeSed } from "./readonly-sed.js";
import { type Spec, specs, versionArguments } from "./readonly-specs.js";
import type { Finding } from "./shell-words.js";
import type { Invocation } from "./wrappers.js";

/**
 * The read-only allowlist. A command is auto-allowed only when its program is listed here and
 * every argument passes: options that write, run programs or follow links are refused, and the
 * arguments that name files are returned so the caller runs them through the path policy.
 */
export interface ReadonlyJudgement {
  findings: Finding[];
  /** File arguments to check for reading. */
  paths: string[];
  /** Folders read recursively: asked when a sensitive folder lies inside. */
  recursive: string[];
  /** Recursion follows symlinks, so a link inside the tree could lead anywhere. */
  followsLinks: boolean;
  /** git: where it starts (`-C`) and which repository it uses (`--git-dir`), to read its effective config. */
  git?: { chdir?: string; gitDir?: string };
}

const npmListOptions =
  /^(--all|-a|--json|--long|-l|--parseable|-p|--prod|--production|--dev|--link|--global|-g|--workspaces|--no-unicode|--unicode|--depth(=\d+)?|\d+|--omit=(dev|optional|peer)|--include=(dev|optional|peer)|(?!-)[@\w./-]+)$/;

const notReadonly = (program: string, why: string): Finding => ({
  decision: "ask",
  rule: "command.not-readonly",
  reason: `${program} ${why}`,
});

export function judgeReadonly(invocation: Invocation): ReadonlyJudgement {
  const program = invocation.program;
  const args = invocation.words.slice(1).map((word) => word.text);
  const judgement: ReadonlyJudgement = { findings: [], paths: [], recursive: [], followsLinks: false };

  if (args.length === 1 && versionArguments.get(program)?.includes(args[0] as string)) return judgement;
  if (
    program === "env" ||
    program === "printenv" ||
    program === "set" ||
    program === "export" ||
    program === "declare"
  ) {
    judgement.findings.push({
      decision: "ask",
      rule: "command.environment-dump",
      reason: `${program} prints the environment, which holds API keys`,
    });
    return judgement;
  }
  if (program === "command") {
    const lookup = args.findIndex((arg) => !/^-[pvV]+$/.test(arg));
    const options = lookup === -1 ? args : args.slice(0, lookup);
    if (
      options.some((arg) => /[vV]/.test(arg)) &&
      args.slice(options.length).every((arg) => /^[\w.+-]+$/.test(arg))
    )
      return judgement;
  }
  if (program === "find") return judgeFind(args, judgement);
  if (program === "sed") {
    const sed = judgeSed(args);
    if ("refused" in sed) judgement.findings.push(notReadonly(program, sed.refused));
    else judgement.paths.push(...sed.files);
    return judgement;
  }
  if (program === "git") return judgeGit(args, judgement);
  if (program === "npm" && ["ls", "list", "ll", "la"].includes(args[0] ?? "")) {
    // Only listing options: `--prefix`, `--logs-dir`, `--cache`, `--userconfig`… point npm elsewhere or write.
    const unknown = args.slice(1).find((arg) => !npmListOptions.test(arg));
    if (unknown)
      judgement.findings.push(notReadonly(program, `ls ${unknown} is not a listed read-only option`));
    return judgement;
  }
  const spec = ownEntry(specs, program);
  if (!spec) {
    judgement.findings.push(notReadonly(program, "is not on the read-only allowlist"));
    return judgement;
  }
  return judgeBySpec(program, args, spec, judgement);
}

function judgeBySpec(
  program: string,
  args: string[],
  spec: Spec,
  judgement: ReadonlyJudgement,
): ReadonlyJudgement {
  const positional: string[] = [];
  let patternGiven = false;
  let recursive = spec.alwaysRecursive ?? false;
  let optionsDone = spec.anyText === true;
  const refuse = (arg: string, why: string) => judgement.findings.push(notReadonly(program, `${arg} ${why}`));
  const noted = (name: string) => {
    if (["-e", "--regexp", "-f", "--file"].includes(name)) patternGiven = true;
    if (spec.recursiveFlags?.includes(name)) recursive = true;
    if (spec.followFlags?.includes(name)) judgement.followsLinks = true;
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (optionsDone || arg === "-" || !arg.startsWith("-")) {
      positional.push(arg);
      continue;
    }
    if (arg === "--") {
      optionsDone = true;
      continue;
    }
    if (spec.numericOption && /^-\d+$/.test(arg)) continue;
    if (arg.startsWith("--")) {
      const equals = arg.indexOf("=");
      const name = equals === -1 ? arg : arg.slice(0, equals);
      const inline = equals === -1 ? undefined : arg.slice(equals + 1);
      if (spec.forbidden?.includes(name)) {
        refuse(arg, "writes files or runs another program");
        continue;
      }
      const takesValue = spec.values?.includes(name) || spec.fileValues?.includes(name);
      if (!takesValue && !spec.long?.includes(name)) {
        refuse(
          arg,
          "is not a listed read-only option (unknown options and abbreviations of long options are not trusted)",
        );
        continue;
      }
      let value = inline;
      if (takesValue && value === undefined) {
        value = args[index + 1];
        index += 1;
      }
      if (spec.fileValues?.includes(name) && value !== undefined) judgement.paths.push(value);
      noted(name);
      continue;
    }
    // A short-option cluster (`-la`, `-uo FILE`, `-n5`): every letter must be known.
    for (let at = 1; at < arg.length; at++) {
      const letter = `-${arg[at]}`;
      if (spec.forbidden?.includes(letter)) {
        refuse(arg, `(${letter}) writes files or runs another program`);
        break;
      }
      const takesValue = spec.values?.includes(letter) || spec.fileValues?.includes(letter);
      if (takesValue) {
        let value: string | undefined = arg.slice(at + 1);
        if (value === "") {
          value = args[index + 1];
          index += 1;
        }
        if (spec.fileValues?.includes(letter) && value !== undefined) judgement.paths.push(value);
        noted(letter);
        break;
      }
      if (!spec.short?.includes(arg[at] as string)) {
        refuse(arg, `(${letter}) is not a listed read-only option`);
        break;
      }
      noted(arg[at] as string);
    }
  }
  if (spec.positional === "text") return judgement;
  if (spec.positional === "none" && positional.length > 0) {
    judgement.findings.push(
      notReadonly(program, `with arguments (${positional.join(" ")}) may change state`),
    );
    return judgement;
  }
  if (spec.maxPositional !== undefined && positional.length > spec.maxPositional) {
    judgement.findings.push(
      notReadonly(program, `with ${positional.length} operands writes its output to a file`),
    );
    return judgement;
  }
  let files = spec.positional === "paths" ? positional : [];
  if (spec.positional === "pattern-then-paths") files = patternGiven ? positional : positional.slice(1);
  if (files.length === 0 && recursive) files = [spec.defaultPath ?? "."];
  judgement.paths.push(...files);
  if (recursive) judgement.recursive.push(...files);
  return judgement;
}

const findPrimariesWithValue = new Set([
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-wholename",
  "-iwholename",
  "-regex",
  "-iregex",
  "-type",
  "-xtype",
  "-size",
  "-mtime",
  "-mmin",
  "-atime",
  "-amin",
  "-ctime",
  "-cmin",
  "-newer",
  "-user",
  "-group",
  "-perm",
  "-maxdepth",
  "-mindepth",
  "-links",
  "-inum",
  "-uid",
  "-gid",
  "-printf",
  "-lname",
  "-ilname",
  "-samefile",
  "-fstype",
  "-regextype",
  "-used",
  "-newermt",
  "-anewer",
  "-cnewer",
  "-context",
]);

const findPathPrimaries = new Set(["-newer", "-anewer", "-cnewer", "-samefile"]);

const findPrimariesWithoutValue = new Set([
  "-print",
  "-print0",
  "-ls",
  "-prune",
  "-quit",
  "-true",
  "-false",
  "-empty",
  "-executable",
  "-readable",
  "-writable",
  "-nouser",
  "-nogroup",
  "-depth",
  "-d",
  "-mount",
  "-xdev",
  "-noleaf",
  "-ignore_readdir_race",
  "-noignore_readdir_race",
  "-daystart",
  "-nowarn",
  "-warn",
  "-not",
  "-a",
  "-and",
  "-o",
  "-or",
  "!",
  "(",
  ")",
  ",",
  "-help",
  "--help",
  "-version",
  "--version",
]);

function judgeFind(args: string[], judgement: ReadonlyJudgement): ReadonlyJudgement {
  const roots: string[] = [];
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "-L" || arg === "-H" || arg === "-P") {
      if (arg === "-L") judgement.followsLinks = true;
      continue;
    }
    if (arg.startsWith("-") || arg === "(" || arg === "!" || arg === ")") break;
    roots.push(arg);
  }
  for (; index < args.length; index++) {
    const arg = args[index] as string;
    if (["-exec", "-execdir", "-ok", "-okdir"].includes(arg)) {
      judgement.findings.push({
        decision: "ask",
        rule: "command.find-exec",
        reason: `find ${arg} runs a program on every match`,
      });
    } else if (arg === "-delete") {
      judgement.findings.push({
        decision: "ask",
        rule: "command.find-delete",
        reason: "find -delete deletes every match",
      });
    } else if (["-fprint", "-fprint0", "-fprintf", "-fls"].includes(arg)) {
      judgement.findings.push({
        decision: "ask",
        rule: "command.find-write",
        reason: `find ${arg} writes to a file`,
      });
    } else if (arg === "-follow") {
      judgement.followsLinks = true;
    } else if (findPrimariesWithValue.has(arg) || /^-newer[aBcmt][aBcmt]$/.test(arg)) {
      // Primaries that compare against another file read that file's metadata: its path is checked.
      if (findPathPrimaries.has(arg) || /^-newer[aBcm][aBcm]$/.test(arg))
        judgement.paths.push(args[index + 1] ?? "");
      index += 1;
    } else if (!findPrimariesWithoutValue.has(arg)) {
      // Conservative: a primary not listed here (`-files0-from`, `-D`, a new action) is not trusted.
      judgement.findings.push(notReadonly("find", `${arg} is not a listed read-only find primary`));
    }
  }
  const searched = roots.length > 0 ? roots : ["."];
  judgement.paths.push(...searched);
  judgement.recursive.push(...searched);
  return judgement;
}
