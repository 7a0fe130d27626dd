import { dirname, posix } from "node:path";
import type { PermissionContext } from "./context.js";
import type { Finding } from "./shell-words.js";
import type { Invocation } from "./wrappers.js";

/**
 * The hardline denylist: commands refused in every mode, allow-all and approvals included,
 * because one mistake is unrecoverable (wiped disks, deleted homes, an unbootable system).
 */

const systemTrees = [
  "/boot",
  "/etc",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/System",
  "/private/etc",
];
const harmlessDevices = new Set([
  "/dev/null",
  "/dev/zero",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/stdin",
  "/dev/tty",
  "/dev/random",
  "/dev/urandom",
]);

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

function normalizeTarget(text: string, context: PermissionContext): string {
  let path = text;
  if (path === "~" || path.startsWith("~/")) path = context.home + path.slice(1);
  const absolute = path.startsWith("/") ? path : posix.join(context.cwd, path);
  const normal = posix.normalize(absolute);
  return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
}

/** "/", top-level folders, the home folder and its parent, and the first level of system trees. */
function isCriticalDirectory(path: string, context: PermissionContext): boolean {
  if (path === "/" || path === context.home || path === dirname(context.home)) return true;
  const depth = path.split("/").filter(Boolean).length;
  if (depth <= 1) return true;
  return depth === 2 && systemTrees.some((tree) => path.startsWith(`${tree}/`));
}

/** A delete target that wipes a critical folder: the folder itself, or a glob over all of it (`/*`, `~/*`). */
function wipesCritical(text: string, glob: boolean, context: PermissionContext): boolean {
  const target = normalizeTarget(text, context);
  if (isCriticalDirectory(target, context)) return true;
  if (glob) {
    const firstGlob = target.search(/[*?[]/);
    const fixed = target.slice(0, firstGlob);
    const base = fixed.endsWith("/") ? fixed.slice(0, -1) || "/" : dirname(fixed);
    return isCriticalDirectory(base, context);
  }
  return false;
}

/** A write there breaks the system or a disk: block devices and system trees. */
export function protectedWriteTarget(text: string, context: PermissionContext): Finding | null {
  const target = normalizeTarget(text, context);
  if (target.startsWith("/dev/")) {
    if (harmlessDevices.has(target) || target.startsWith("/dev/fd/") || target.startsWith("/dev/pts/"))
      return null;
    return {
      decision: "deny",
      rule: "hardline.device-write",
      reason: `writing to the device ${target} can destroy a disk`,
    };
  }
  const tree = [...systemTrees, "/proc", "/sys"].find(
    (root) => target === root || target.startsWith(`${root}/`),
  );
  if (tree) {
    return {
      decision: "deny",
      rule: "hardline.system-write",
      reason: `writing under ${tree} changes system files`,
    };
  }
  return null;
}

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

const writers: Record<string, (args: string[]) => string[]> = {
  tee: (args) => operands(args),
  cp: (args) => operands(args).slice(-1),
  mv: (args) => operands(args),
  install: (args) => operands(args).slice(-1),
  ln: (args) => operands(args).slice(-1),
  rsync: (args) => operands(args).slice(-1),
  truncate: (args) => operands(args),
  shred: (args) => operands(args),
  touch: (args) => operands(args),
  mkdir: (args) => operands(args),
  rmdir: (args) => operands(args),
  rm: (args) => operands(args),
  unlink: (args) => operands(args),
  chmod: (args) => operands(args).slice(1),
  chown: (args) => operands(args).slice(1),
  chgrp: (args) => operands(args).slice(1),
  sed: (args) =>
    args.some((a) => a.startsWith("-i") || a.startsWith("--in-place")) ? operands(args).slice(1) : [],
};

export function hardlineCheck(invocation: Invocation, context: PermissionContext): Finding | null {
  const { program } = invocation;
  const words = invocation.words.slice(1);
  const args = words.map((word) => word.text);

  if (
    /^mkfs(\..+)?$/.test(program) ||
    ["mke2fs", "mkswap", "wipefs", "mkdosfs", "mkntfs", "mkfs_msdos"].includes(program) ||
    program.startsWith("newfs")
  ) {
    return { decision: "deny", rule: "hardline.mkfs", reason: `${program} formats a file system` };
  }
  if (["shutdown", "reboot", "halt", "poweroff"].includes(program)) {
    return { decision: "deny", rule: "hardline.power", reason: `${program} stops the machine` };
  }
  if ((program === "init" || program === "telinit") && ["0", "6"].includes(args[0] ?? "")) {
    return { decision: "deny", rule: "hardline.power", reason: `${program} ${args[0]} stops the machine` };
  }
  if (
    program === "systemctl" &&
    args.some((arg) => ["poweroff", "reboot", "halt", "kexec", "emergency", "rescue"].includes(arg))
  ) {
    return {
      decision: "deny",
      rule: "hardline.power",
      reason: "systemctl would stop or restart the machine",
    };
  }
  if (program === "dd") {
    for (const arg of args) {
      if (arg.startsWith("of=")) {
        const finding = protectedWriteTarget(arg.slice(3), context);
        if (finding)
          return {
            ...finding,
            rule: finding.rule === "hardline.device-write" ? "hardline.dd-device" : finding.rule,
          };
      }
    }
  }
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
  if (program === "rm" || program === "rmdir") {
    if (args.includes("--no-preserve-root")) {
      return {
        decision: "deny",
        rule: "hardline.rm-root",
        reason: "rm --no-preserve-root deletes the whole system",
      };
    }
    const recursive =
      program === "rmdir" || args.some((arg) => /^-[a-zA-Z]*[rR]/.test(arg) || arg === "--recursive");
    if (recursive) {
      let optionsDone = false;
      for (const word of words) {
        if (!optionsDone && word.text === "--") {
          optionsDone = true;
          continue;
        }
        if (!optionsDone && word.text.startsWith("-")) continue;
        if (wipesCritical(word.text, word.glob, context)) {
          return {
            decision: "deny",
            rule: "hardline.rm-root",
            reason: `${program} -r of ${word.text} would delete the system or a home folder`,
          };
        }
      }
    }
  }
  if (program === "find" && args.includes("-delete")) {
    for (const word of words) {
      if (word.text.startsWith("-") || word.text === "(" || word.text === "!") break;
      if (wipesCritical(word.text, word.glob, context)) {
        return {
          decision: "deny",
          rule: "hardline.rm-root",
          reason: `find ${word.text} -delete would delete the system or a home folder`,
        };
      }
    }
  }
  if (["chmod", "chown", "chgrp"].includes(program)) {
    for (const word of words.slice(1)) {
      if (word.text.startsWith("-")) continue;
      if (wipesCritical(word.text, word.glob, context)) {
        return {
          decision: "deny",
          rule: "hardline.chmod-root",
          reason: `${program} on ${word.text} changes the whole system or home folder`,
        };
      }
    }
  }
  if (program === "mv") {
    // Moving a home or system folder away is deleting it from where everything expects it.
    for (const word of words.slice(0, -1)) {
      if (!word.text.startsWith("-") && wipesCritical(word.text, word.glob, context)) {
        return {
          decision: "deny",
          rule: "hardline.rm-root",
          reason: `mv of ${word.text} moves the system or a home folder away`,
        };
      }
    }
  }
  const writer = writers[program];
  if (writer) {
    for (const target of writer(args)) {
      const finding = protectedWriteTarget(target, context);
      if (finding) return finding;
    }
  }
  return null;
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
