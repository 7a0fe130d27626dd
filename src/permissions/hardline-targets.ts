import { statSync } from "node:fs";
import { dirname, posix } from "node:path";
import { isMercuryState, isWithin, type PermissionContext } from "./context.js";
import { ownEntry } from "./own-key.js";
import { nodePathFs, type PathFs, resolveReal } from "./paths.js";
import { sensitiveMatch } from "./sensitive.js";
import type { Finding } from "./shell-words.js";
import { isDevice, systemTreeOf } from "./system-paths.js";

/**
 * Where a hardline target really points: the path as written (lexically normalised) and, when it
 * exists or its parent does, its real path after symlinks, so `rm -rf link/*` with `link -> ~`
 * and `dd of=disk` with `disk -> /dev/sda` are judged by what they reach.
 */
export function targetForms(text: string, context: PermissionContext, fsApi: PathFs = nodePathFs): string[] {
  const lexical = normalizeTarget(text, context);
  const forms = [lexical];
  try {
    const resolved = resolveReal(text, context.cwd, context.home, fsApi);
    if (resolved.ok && resolved.realPath !== lexical) forms.push(trimSlash(resolved.realPath));
  } catch {
    // Unreadable components (EACCES): the lexical form is still judged.
  }
  return forms;
}

export function normalizeTarget(text: string, context: PermissionContext): string {
  let path = text;
  if (path === "~" || path.startsWith("~/")) path = context.home + path.slice(1);
  const absolute = path.startsWith("/") ? path : posix.join(context.cwd, path);
  return trimSlash(posix.normalize(absolute));
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/** "/", top-level folders, the home folder and its parent, Mercury's home, and the first level of system trees. */
export function isCriticalDirectory(path: string, context: PermissionContext): boolean {
  if (path === "/" || path === context.home || path === dirname(context.home)) return true;
  if (path === context.mercuryHome) return true;
  const depth = path.split("/").filter(Boolean).length;
  if (depth <= 1) return true;
  return depth === 2 && systemTreeOf(path) !== null;
}

/**
 * A destructive target that wipes a critical folder: the folder itself, an ancestor of the home
 * folder, or a glob over all of it (`/*`, `~/*`, `link/*` through a symlink to home).
 */
export function wipesCritical(
  text: string,
  glob: boolean,
  context: PermissionContext,
  fsApi: PathFs = nodePathFs,
): boolean {
  let base = text;
  if (glob) {
    const firstGlob = text.search(/[*?[]/);
    const fixed = text.slice(0, firstGlob);
    base = fixed === "" ? "." : fixed.endsWith("/") ? fixed.slice(0, -1) || "/" : dirname(fixed);
  }
  for (const form of targetForms(base, context, fsApi)) {
    if (isCriticalDirectory(form, context) && !isRegularFile(form)) return true;
    // Deleting an ancestor of home (or of Mercury's home) deletes it too.
    if (isWithin(context.home, form) || isWithin(context.mercuryHome, form)) return true;
  }
  return false;
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    // Missing or unreadable: judged as the folder it may be.
    return false;
  }
}

/** A write there breaks the system, a disk, a secret or Mercury's own state. */
export function protectedWriteTarget(
  text: string,
  context: PermissionContext,
  fsApi: PathFs = nodePathFs,
): Finding | null {
  for (const target of targetForms(text, context, fsApi)) {
    if (isDevice(target)) {
      return {
        decision: "deny",
        rule: "hardline.device-write",
        reason: `writing to the device ${target} can destroy a disk`,
      };
    }
    const tree = target === "/" ? "/" : systemTreeOf(target);
    if (tree) {
      return {
        decision: "deny",
        rule: "hardline.system-write",
        reason: `writing ${target} changes system files under ${tree}`,
      };
    }
    const secret = sensitiveMatch(target, context.home, context.mercuryHome);
    if (secret) {
      return {
        decision: "deny",
        rule: "path.sensitive",
        reason: `${text} is ${secret.what}; it is off-limits in every mode`,
      };
    }
    if (isMercuryState(target, context.mercuryHome)) {
      return {
        decision: "deny",
        rule: "path.mercury-state",
        reason: `${text} is inside Mercury's own folder; the agent never changes its configuration, soul, database or permission state`,
      };
    }
  }
  return null;
}

/** Long options whose value is where the program writes (matched by any unambiguous abbreviation too). */
const outputOptionNames = [
  "output",
  "output-document",
  "output-file",
  "output-dir",
  "output-directory",
  "outfile",
  "out-file",
  "out",
  "log-file",
  "logfile",
  "logs-dir",
  "target-directory",
  "directory",
  "directory-prefix",
  "destination",
  "dest",
  "save",
  "dump",
  "backup-dir",
  "prefix",
  "root",
  "install-dir",
  "cache",
  "userconfig",
  "globalconfig",
];

/** Short options that name an output file or folder, per program (`-o` for every program not listed as different). */
const shortOutputOptions: Record<string, string[]> = {
  wget: ["-O", "-P", "-o", "-a"],
  cp: ["-t"],
  mv: ["-t"],
  install: ["-t"],
  ln: ["-t"],
  tar: ["-C"],
  unzip: ["-d"],
  make: ["-C"],
  time: ["-o"],
  split: [],
  csplit: ["-f"],
};
/** Programs where `-o` means something other than an output file. */
const dashOIsNotOutput = new Set([
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ls",
  "find",
  "ps",
  "ssh",
  "scp",
  "sftp",
  "mount",
  "set",
  "test",
  "[",
  "xargs",
  "nice",
  "stdbuf",
  "rsync",
  "join",
]);

/**
 * The words a program writes to, found from its options: `-o FILE`/`-oFILE`, `--output=FILE` and
 * every abbreviation of such a long option, `of=` for dd, plus the program's positional targets.
 */
export function outputTargets(program: string, args: string[]): string[] {
  const out: string[] = [];
  const shorts = ownEntry(shortOutputOptions, program) ?? (dashOIsNotOutput.has(program) ? [] : ["-o"]);
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (program === "dd" && arg.startsWith("of=")) out.push(arg.slice(3));
    if (arg.startsWith("--") && arg.length > 4) {
      const equals = arg.indexOf("=");
      const name = (equals === -1 ? arg.slice(2) : arg.slice(2, equals)).toLowerCase();
      const matches = outputOptionNames.some(
        (option) =>
          (name.length >= 3 && option.startsWith(name)) || name.startsWith(`${option}-`) || name === option,
      );
      if (matches) {
        if (equals !== -1) out.push(arg.slice(equals + 1));
        else if (args[index + 1] !== undefined) out.push(args[index + 1] as string);
      }
      continue;
    }
    for (const short of shorts) {
      if (arg === short && args[index + 1] !== undefined) out.push(args[index + 1] as string);
      else if (arg.startsWith(short) && arg.length > short.length && !arg.startsWith("--"))
        out.push(arg.slice(short.length));
      // A cluster such as `sort -uo FILE` ends with the option letter and takes the next word.
      else if (
        /^-[A-Za-z]+$/.test(arg) &&
        arg.length > 2 &&
        arg.endsWith(short.slice(1)) &&
        args[index + 1] !== undefined
      )
        out.push(args[index + 1] as string);
    }
  }
  return out.filter((target) => target !== "" && target !== "-");
}
