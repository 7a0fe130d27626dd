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

interface Spec {
  /** Options that take a separate value (a `--long=value` form is handled by itself). */
  values?: string[];
  /** How positional words are read. */
  positional: "paths" | "pattern-then-paths" | "none" | "text";
  /** Options that make the command write, run something or otherwise stop being read-only. */
  forbidden?: string[];
  /** Options whose value is a file to read. */
  fileValues?: string[];
  recursiveFlags?: string[];
  alwaysRecursive?: boolean;
  followFlags?: string[];
  /** At most this many positional words (uniq's second one is an output file). */
  maxPositional?: number;
  /** Default operand when there is none (a recursive search of "."). */
  defaultPath?: string;
}

const paths: Spec = { positional: "paths" };
const text: Spec = { positional: "text" };

const specs: Record<string, Spec> = {
  ls: {
    positional: "paths",
    values: ["-I", "--ignore", "-w", "--width", "-T", "--tabsize", "--hide", "--block-size"],
    recursiveFlags: ["R", "--recursive"],
  },
  cat: paths,
  tac: paths,
  nl: { positional: "paths", values: ["-b", "-d", "-f", "-h", "-i", "-n", "-s", "-v", "-w"] },
  head: { positional: "paths", values: ["-n", "-c", "--lines", "--bytes"] },
  tail: {
    positional: "paths",
    values: ["-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid"],
  },
  wc: { positional: "paths", fileValues: ["--files0-from"] },
  stat: { positional: "paths", values: ["-c", "--format", "--printf", "-t"] },
  file: {
    positional: "paths",
    values: ["-F", "-P"],
    fileValues: ["-m", "-f", "--magic-file", "--files-from"],
  },
  diff: {
    positional: "paths",
    values: [
      "-U",
      "-C",
      "--label",
      "-L",
      "-I",
      "--ignore-matching-lines",
      "-x",
      "--exclude",
      "-F",
      "-W",
      "--width",
    ],
    recursiveFlags: ["r", "--recursive"],
    forbidden: ["--to-file", "--from-file"],
  },
  cmp: paths,
  md5sum: paths,
  sha1sum: paths,
  sha256sum: paths,
  sha512sum: paths,
  shasum: { positional: "paths", values: ["-a", "--algorithm"] },
  b2sum: paths,
  cksum: paths,
  readlink: paths,
  realpath: paths,
  basename: text,
  dirname: text,
  od: { positional: "paths", values: ["-A", "-t", "-N", "-j", "-w"] },
  hexdump: { positional: "paths", values: ["-n", "-s", "-e"], fileValues: ["-f"] },
  strings: { positional: "paths", values: ["-n", "-t", "-e"] },
  column: { positional: "paths", values: ["-s", "-t", "-c", "-o", "-N"] },
  fold: { positional: "paths", values: ["-w"] },
  rev: paths,
  paste: { positional: "paths", values: ["-d"] },
  cut: {
    positional: "paths",
    values: ["-d", "-f", "-c", "-b", "--delimiter", "--fields", "--output-delimiter"],
  },
  sort: {
    positional: "paths",
    values: ["-k", "-t", "-S", "-T", "--key", "--field-separator", "--buffer-size", "--parallel"],
    forbidden: ["-o", "--output", "--compress-program"],
    fileValues: ["--files0-from"],
  },
  uniq: { positional: "paths", values: ["-f", "-s", "-w"], maxPositional: 1 },
  comm: paths,
  tr: text,
  echo: text,
  printf: text,
  pwd: { positional: "none" },
  whoami: { positional: "none" },
  id: text,
  groups: text,
  uname: { positional: "none" },
  arch: { positional: "none" },
  nproc: { positional: "none" },
  uptime: { positional: "none" },
  date: {
    positional: "text",
    values: ["-d", "--date", "-r", "--reference"],
    forbidden: ["-s", "--set", "-f", "--file"],
  },
  cal: text,
  true: text,
  false: text,
  sleep: text,
  seq: text,
  which: text,
  whereis: text,
  type: text,
  hostname: { positional: "none", forbidden: ["-F", "--file", "-b", "--boot"] },
  df: paths,
  free: { positional: "none" },
  test: text,
  "[": text,
  cd: paths,
  tree: {
    positional: "paths",
    values: ["-L", "-I", "-P", "--filelimit", "--charset", "-H", "-T", "--sort", "--timefmt"],
    forbidden: ["-o", "-R"],
    alwaysRecursive: true,
    followFlags: ["l"],
    defaultPath: ".",
  },
  du: {
    positional: "paths",
    values: ["-d", "--max-depth", "-B", "--block-size", "-t", "--threshold", "--exclude", "--time-style"],
    alwaysRecursive: true,
    followFlags: ["L", "--dereference"],
    defaultPath: ".",
    fileValues: ["-X", "--exclude-from", "--files0-from"],
  },
  grep: grepSpec(),
  egrep: grepSpec(),
  fgrep: grepSpec(),
  rg: {
    positional: "pattern-then-paths",
    values: [
      "-g",
      "--glob",
      "--iglob",
      "-t",
      "--type",
      "-T",
      "--type-not",
      "-m",
      "--max-count",
      "-A",
      "-B",
      "-C",
      "--after-context",
      "--before-context",
      "--context",
      "-M",
      "--max-columns",
      "--max-depth",
      "-d",
      "--color",
      "--colors",
      "-j",
      "--threads",
      "--sort",
      "--sortr",
      "-E",
      "--encoding",
      "--type-add",
      "-r",
      "--replace",
      "--max-filesize",
      "-e",
      "--regexp",
    ],
    fileValues: ["-f", "--file", "--ignore-file"],
    forbidden: ["--pre", "--pre-glob", "--hostname-bin"],
    alwaysRecursive: true,
    followFlags: ["L", "--follow"],
    defaultPath: ".",
  },
};

function grepSpec(): Spec {
  return {
    positional: "pattern-then-paths",
    values: [
      "-e",
      "--regexp",
      "-m",
      "--max-count",
      "-A",
      "-B",
      "-C",
      "--after-context",
      "--before-context",
      "--context",
      "--include",
      "--exclude",
      "--exclude-dir",
      "--label",
      "--color",
      "--colour",
      "-D",
      "--devices",
      "--binary-files",
    ],
    fileValues: ["-f", "--file", "--exclude-from"],
    recursiveFlags: ["r", "R", "--recursive", "--dereference-recursive"],
    followFlags: ["R", "--dereference-recursive"],
    forbidden: ["-d", "--directories"],
  };
}

const versionPrograms = new Set([
  "node",
  "npm",
  "npx",
  "pnpm",
  "yarn",
  "python",
  "python3",
  "pip",
  "pip3",
  "git",
  "tsc",
  "deno",
  "bun",
  "go",
  "cargo",
  "rustc",
  "java",
  "ruby",
  "perl",
  "gcc",
  "clang",
  "make",
  "docker",
  "biome",
  "vitest",
]);

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

const gitReadonly = new Set([
  "status",
  "log",
  "diff",
  "show",
  "branch",
  "rev-parse",
  "ls-files",
  "blame",
  "shortlog",
  "describe",
  "remote",
  "tag",
  "stash",
  "reflog",
  "cat-file",
  "ls-tree",
  "merge-base",
  "whatchanged",
  "grep",
  "rev-list",
  "count-objects",
  "show-ref",
]);

const gitInjection: Finding = {
  decision: "ask",
  rule: "command.git-config",
  reason:
    "git options that set configuration or programs (-c, --config-env, --exec-path, --upload-pack, --exec) can run arbitrary commands",
};

const branchListing = {
  flags: new Set([
    "-a",
    "-r",
    "-v",
    "-vv",
    "-l",
    "--list",
    "--all",
    "--remotes",
    "--show-current",
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--sort",
    "--format",
    "--color",
    "--no-color",
    "--points-at",
    "--column",
    "--no-column",
    "--verbose",
  ]),
  withValue: new Set([
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--sort",
    "--format",
    "--points-at",
  ]),
};
const tagListing = {
  flags: new Set([
    "-l",
    "--list",
    "-n",
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--sort",
    "--format",
    "--points-at",
    "--column",
    "--color",
  ]),
  withValue: new Set([
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--sort",
    "--format",
    "--points-at",
  ]),
};

function judgeGit(args: string[], judgement: ReadonlyJudgement): ReadonlyJudgement {
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index] as string;
    if (
      arg === "-c" ||
      arg.startsWith("--config-env") ||
      arg.startsWith("--exec-path") ||
      arg.startsWith("-c")
    ) {
      judgement.findings.push(gitInjection);
      return judgement;
    }
    if (arg === "-C" || arg === "--git-dir" || arg === "--work-tree") {
      judgement.paths.push(args[index + 1] ?? "");
      index += 1;
      continue;
    }
    if (arg.startsWith("--git-dir=") || arg.startsWith("--work-tree=")) {
      judgement.paths.push(arg.slice(arg.indexOf("=") + 1));
      continue;
    }
    if (arg.startsWith("-")) continue;
    break;
  }
  const sub = args[index];
  const rest = args.slice(index + 1);
  if (
    rest.some(
      (arg) =>
        /^--(upload-pack|receive-pack|exec)\b/.test(arg) ||
        /core\.(sshcommand|pager|editor|fsmonitor|hookspath)/i.test(arg),
    )
  ) {
    judgement.findings.push(gitInjection);
    return judgement;
  }
  if (sub === undefined || !gitReadonly.has(sub)) {
    judgement.findings.push(notReadonly("git", `${sub ?? "(no subcommand)"} is not a read-only git command`));
    return judgement;
  }
  const forbidden = rest.find(
    (arg) => /^--(output|ext-diff|open-files-in-pager)/.test(arg) || (sub === "grep" && /^-O/.test(arg)),
  );
  if (forbidden) {
    judgement.findings.push(notReadonly("git", `${sub} ${forbidden} writes a file or runs another program`));
    return judgement;
  }
  const positional = rest.filter((arg) => !arg.startsWith("-"));
  if (sub === "branch" || sub === "tag") {
    const listing = sub === "branch" ? branchListing : tagListing;
    for (let i = 0; i < rest.length; i++) {
      const arg = rest[i] as string;
      const name = arg.split("=")[0] as string;
      if (!arg.startsWith("-") || !listing.flags.has(name)) {
        judgement.findings.push(notReadonly("git", `${sub} ${arg} creates, deletes or changes refs`));
        return judgement;
      }
      if (listing.withValue.has(name) && !arg.includes("=")) i += 1;
    }
    return judgement;
  }
  if (sub === "remote" && positional.length > 0 && !["show", "get-url"].includes(positional[0] as string)) {
    judgement.findings.push(notReadonly("git", `remote ${positional[0]} changes the remotes`));
    return judgement;
  }
  if (
    (sub === "stash" || sub === "reflog") &&
    positional.length > 0 &&
    !["list", "show"].includes(positional[0] as string)
  ) {
    judgement.findings.push(notReadonly("git", `${sub} ${positional[0]} changes the repository`));
    return judgement;
  }
  const dashDash = rest.indexOf("--");
  if (dashDash >= 0) judgement.paths.push(...rest.slice(dashDash + 1));
  // Revisions look like "HEAD~1" or "origin/main"; anything absolute or climbing out is a file to check
  // (`git diff --no-index /etc/passwd x` reads outside the project).
  const before = dashDash >= 0 ? rest.slice(0, dashDash) : rest;
  judgement.paths.push(...before.filter((arg) => /^(\/|~|\.\.)/.test(arg)));
  return judgement;
}
