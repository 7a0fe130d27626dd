import { judgeGit } from "./readonly-git.js";
import { type Spec, specs, versionPrograms } from "./readonly-specs.js";
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
}

const notReadonly = (program: string, why: string): Finding => ({
  decision: "ask",
  rule: "command.not-readonly",
  reason: `${program} ${why}`,
});

export function judgeReadonly(invocation: Invocation): ReadonlyJudgement {
  const program = invocation.program;
  const args = invocation.words.slice(1).map((word) => word.text);
  const judgement: ReadonlyJudgement = { findings: [], paths: [], recursive: [], followsLinks: false };

  if (
    versionPrograms.has(program) &&
    args.length === 1 &&
    ["--version", "-v", "-V", "version"].includes(args[0] as string)
  ) {
    return judgement;
  }
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
  if (program === "command" && args.some((arg) => arg === "-v" || arg === "-V")) return judgement;
  if (program === "find") return judgeFind(args, judgement);
  if (program === "git") return judgeGit(args, judgement);
  if (
    program === "npm" &&
    ["ls", "list", "ll", "la"].includes(args[0] ?? "") &&
    args.every((a) => !a.startsWith("--prefix"))
  ) {
    return judgement;
  }
  const spec = specs[program];
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
  let optionsDone = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (optionsDone || arg === "-" || !arg.startsWith("-") || spec.positional === "text") {
      if (!optionsDone && arg === "--" && spec.positional !== "text") {
        optionsDone = true;
        continue;
      }
      if (spec.positional === "text" && arg.startsWith("-")) {
        if (spec.forbidden?.includes(arg.split("=")[0] as string)) {
          judgement.findings.push(notReadonly(program, `${arg} changes state`));
        }
        if (spec.values?.includes(arg)) index += 1;
        continue;
      }
      positional.push(arg);
      continue;
    }
    if (arg === "--") {
      optionsDone = true;
      continue;
    }
    const [name, inlineValue] = splitOption(arg);
    if (
      spec.forbidden?.includes(name) ||
      (name.startsWith("-") &&
        !name.startsWith("--") &&
        // A short-option cluster such as `sort -uo out` hides -o inside it.
        spec.forbidden?.some((f) => f.length === 2 && name.slice(1).includes(f.slice(1))))
    ) {
      judgement.findings.push(notReadonly(program, `${arg} writes files or runs another program`));
      continue;
    }
    const takesValue = spec.values?.includes(name) || spec.fileValues?.includes(name);
    let value = inlineValue;
    if (takesValue && value === undefined) {
      value = args[index + 1];
      index += 1;
    }
    if (spec.fileValues?.includes(name) && value !== undefined) judgement.paths.push(value);
    if (["-e", "--regexp", "-f", "--file"].includes(name)) patternGiven = true;
    const shortFlags = name.startsWith("--") ? [] : name.slice(1).split("");
    if (spec.recursiveFlags?.some((flag) => flag === name || shortFlags.includes(flag))) recursive = true;
    if (spec.followFlags?.some((flag) => flag === name || shortFlags.includes(flag)))
      judgement.followsLinks = true;
  }
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

function splitOption(arg: string): [string, string | undefined] {
  if (arg.startsWith("--")) {
    const equals = arg.indexOf("=");
    return equals === -1 ? [arg, undefined] : [arg.slice(0, equals), arg.slice(equals + 1)];
  }
  return [arg, undefined];
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
    } else if (findPrimariesWithValue.has(arg)) {
      if (arg === "-newer" || arg === "-samefile") judgement.paths.push(args[index + 1] ?? "");
      index += 1;
    }
  }
  const searched = roots.length > 0 ? roots : ["."];
  judgement.paths.push(...searched);
  judgement.recursive.push(...searched);
  return judgement;
}
