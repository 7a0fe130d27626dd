import type { PermissionContext } from "./context.js";
import { deletedByOption } from "./hardline-deleting-options.js";
import { massKillFinding } from "./hardline-kill.js";
import { diskFinding, powerFinding, processMemoryFinding } from "./hardline-programs.js";
import { outputTargets, protectedWriteTarget, wipesCritical } from "./hardline-targets.js";
import { ownEntry } from "./own-key.js";
import { nodePathFs, type PathFs } from "./paths.js";
import { judgeReadonly } from "./readonly.js";
import type { EvaluatedWord, Finding } from "./shell-words.js";
import type { Invocation } from "./wrappers.js";

export { protectedWriteTarget } from "./hardline-targets.js";

/**
 * The hardline denylist: commands refused in every mode, allow-all and approvals included,
 * because one mistake is unrecoverable (wiped disks, deleted homes, an unbootable system).
 * Judged by class — what the program does to what target — not by spelling: any program that
 * deletes or moves (rm, rmdir, shred, find -delete/-exec, rsync --delete, mv…) aimed at a
 * critical folder; any program writing (by option or operand) into system trees, devices,
 * secrets or Mercury's own state; disk tools; power and session changes; attaching to processes.
 */

export const downloaders = new Set([
  "curl",
  "wget",
  "fetch",
  "aria2c",
  "http",
  "https",
  "xh",
  "lwp-request",
  "ftp",
  "tftp",
]);

function operands(args: string[]): string[] {
  const out: string[] = [];
  let optionsDone = false;
  for (const arg of args) {
    if (!optionsDone && arg === "--") {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && arg.startsWith("-") && arg !== "-") continue;
    out.push(arg);
  }
  return out;
}

const all = (args: string[]) => operands(args);
const last = (args: string[]) => operands(args).slice(-1);
const afterFirst = (args: string[]) => operands(args).slice(1);

/** Positional words each writing program writes to. */
const writers: Record<string, (args: string[]) => string[]> = {
  tee: all,
  cp: last,
  install: last,
  ln: last,
  rsync: last,
  scp: last,
  mv: all,
  truncate: all,
  shred: all,
  touch: all,
  mkdir: all,
  mkfifo: all,
  mknod: (args) => operands(args).slice(0, 1),
  rmdir: all,
  rm: all,
  unlink: all,
  srm: all,
  wipe: all,
  "trash-put": all,
  trash: all,
  chmod: afterFirst,
  chown: afterFirst,
  chgrp: afterFirst,
  chattr: afterFirst,
  setfacl: afterFirst,
  gzip: all,
  gunzip: all,
  bzip2: all,
  xz: all,
  zstd: all,
  vi: all,
  vim: all,
  nvim: all,
  nano: all,
  ed: all,
  ex: all,
  emacs: all,
  patch: (args) => operands(args).slice(0, 1),
  split: (args) => operands(args).slice(1),
  sed: (args) =>
    args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith("--in-place")) ? afterFirst(args) : [],
  perl: (args) => (args.some((a) => /^-[a-zA-Z]*i/.test(a)) ? operands(args).slice(1) : []),
  // `git clone SRC DEST`, `git init DIR`, `git worktree add DIR`: the folder git creates and fills.
  git: (args) => {
    const words = operands(args);
    if (words[0] === "clone" && words.length >= 3) return words.slice(-1);
    if (words[0] === "init" && words.length >= 2) return words.slice(1, 2);
    if (words[0] === "worktree" && words[1] === "add" && words[2]) return [words[2]];
    return [];
  },
};

/** Programs that delete (or move away) their operands. */
const deleters = new Set([
  "rm",
  "rmdir",
  "unlink",
  "shred",
  "srm",
  "wipe",
  "trash",
  "trash-put",
  "mv",
  "rimraf",
]);
const recursiveChangers = new Set(["chmod", "chown", "chgrp", "chattr", "setfacl"]);

export function hardlineCheck(
  invocation: Invocation,
  context: PermissionContext,
  fsApi: PathFs = nodePathFs,
): Finding | null {
  const { program } = invocation;
  const words = invocation.words.slice(1);
  const args = words.map((word) => word.text);

  if (
    /^mkfs(\..+)?$/.test(program) ||
    ["mke2fs", "mkswap", "wipefs", "mkdosfs", "mkntfs", "mkfs_msdos", "mkexfatfs", "mkfs.fat"].includes(
      program,
    ) ||
    program.startsWith("newfs")
  ) {
    return { decision: "deny", rule: "hardline.mkfs", reason: `${program} formats a file system` };
  }
  const fixed =
    powerFinding(program, args) ?? diskFinding(program, args) ?? processMemoryFinding(program, args);
  if (fixed) return fixed;
  if (program === "dd") {
    for (const arg of args) {
      if (!arg.startsWith("of=")) continue;
      const finding = protectedWriteTarget(arg.slice(3), context, fsApi);
      if (finding)
        return {
          ...finding,
          rule: finding.rule === "hardline.device-write" ? "hardline.dd-device" : finding.rule,
        };
    }
  }
  const massKill = massKillFinding(program, args);
  if (massKill) return massKill;
  if (program === "kill" || program === "pkill" || program === "killall") {
    const pids = killTargets(args);
    if (program === "kill" && pids.some((pid) => pid === "1" || pid === "-1")) {
      return {
        decision: "deny",
        rule: "hardline.kill-all",
        reason: "killing PID 1 or every process (-1) takes the system down",
      };
    }
    if (program !== "kill" && pids.some((name) => ["init", "systemd", "launchd"].includes(name))) {
      return {
        decision: "deny",
        rule: "hardline.kill-all",
        reason: `killing ${pids.join(" ")} takes the system down`,
      };
    }
  }
  if (
    (program === "rm" || program === "rmdir") &&
    args.some((arg) => isAbbreviationOf(arg, "--no-preserve-root", 4))
  ) {
    return {
      decision: "deny",
      rule: "hardline.rm-root",
      reason: `${program} --no-preserve-root deletes the whole system`,
    };
  }
  const critical = (candidates: EvaluatedWord[], why: string): Finding | null => {
    for (const word of candidates) {
      if (wipesCritical(word.text, word.glob, context, fsApi)) {
        return {
          decision: "deny",
          rule: "hardline.rm-root",
          reason: `${why} ${word.text}: it would delete the system or a home folder`,
        };
      }
    }
    return null;
  };
  const operandWords = operandWordsOf(words);
  if (deleters.has(program)) {
    // `mv` moves its sources away; its last operand is where they go.
    const targets =
      program === "mv" &&
      operandWords.length > 1 &&
      !args.some((a) => a.startsWith("-t") || a.startsWith("--target"))
        ? operandWords.slice(0, -1)
        : operandWords;
    const found = critical(targets, `${program} of`);
    if (found) return found;
  }
  if (program === "find") {
    const destructive = args.some((arg) => ["-delete", "-exec", "-execdir", "-ok", "-okdir"].includes(arg));
    if (destructive) {
      const roots: EvaluatedWord[] = [];
      for (const word of words) {
        if (["-L", "-H", "-P"].includes(word.text)) continue;
        if (word.text.startsWith("-") || word.text === "(" || word.text === "!") break;
        roots.push(word);
      }
      const found = critical(
        roots.length > 0 ? roots : [{ text: ".", exact: true, glob: false, findings: [] }],
        "find -delete/-exec over",
      );
      if (found) return found;
    }
  }
  if (
    program === "rsync" &&
    args.some(
      (arg) =>
        isAbbreviationOf(arg.split("=")[0] as string, "--delete", 5) ||
        arg.startsWith("--delete") ||
        arg.startsWith("--remove-source"),
    )
  ) {
    const found = critical(operandWords.slice(-1), "rsync --delete into");
    if (found) return found;
  }
  const deletedAlong = deletedByOption(program, args, operandWords);
  if (deletedAlong.length > 0) {
    const found = critical(deletedAlong, `${program} deletes`);
    if (found) return found;
  }
  if (recursiveChangers.has(program)) {
    for (const word of operandWords.slice(1)) {
      if (wipesCritical(word.text, word.glob, context, fsApi)) {
        return {
          decision: "deny",
          rule: "hardline.chmod-root",
          reason: `${program} on ${word.text} changes the whole system or home folder`,
        };
      }
    }
  }
  const writer = ownEntry(writers, program);
  const targets = [...(writer ? writer(args) : []), ...outputTargetsIfWriting(invocation)];
  for (const target of targets) {
    const finding = protectedWriteTarget(target, context, fsApi);
    if (finding) return finding;
  }
  return null;
}

/** Every path an invocation writes: its positional targets and the values of its output options. */
export function writeTargets(invocation: Invocation): string[] {
  const args = invocation.words.slice(1).map((word) => word.text);
  const writer = ownEntry(writers, invocation.program);
  return [...(writer ? writer(args) : []), ...outputTargetsIfWriting(invocation)];
}

/** Output options only matter when the command is not a plain read (`ls --directory /etc` writes nothing). */
function outputTargetsIfWriting(invocation: Invocation): string[] {
  const args = invocation.words.slice(1).map((word) => word.text);
  const targets = outputTargets(invocation.program, args);
  if (targets.length === 0) return [];
  return judgeReadonly(invocation).findings.length > 0 ? targets : [];
}

function operandWordsOf(words: EvaluatedWord[]): EvaluatedWord[] {
  const out: EvaluatedWord[] = [];
  let optionsDone = false;
  for (const word of words) {
    if (!optionsDone && word.text === "--") {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && word.text.startsWith("-") && word.text !== "-") continue;
    out.push(word);
  }
  return out;
}

/** GNU getopt accepts any unambiguous prefix of a long option: `--no-pres` is `--no-preserve-root`. */
export function isAbbreviationOf(arg: string, option: string, minimum: number): boolean {
  const name = arg.split("=")[0] as string;
  return name.length >= minimum && option.startsWith(name);
}

function killTargets(args: string[]): string[] {
  const out: string[] = [];
  let index = 0;
  // The first option of kill is a signal (-9, -KILL, -s KILL); every later word is a target.
  if (args[0] === "-s" || args[0] === "-n") index = 2;
  else if (args[0]?.startsWith("-") && args[0] !== "--" && args.length > 1) index = 1;
  for (; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "--") continue;
    out.push(arg);
  }
  return out;
}
