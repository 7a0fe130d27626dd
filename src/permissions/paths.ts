import * as fs from "node:fs";
import { dirname, isAbsolute, join, sep } from "node:path";
import { runLaterByTool } from "./autorun-files.js";
import { isMercuryState, isMissing, isWithin, type PermissionContext } from "./context.js";
import { hooksDirectory } from "./git-config.js";
import { inodeKey, secretInodes } from "./secret-inodes.js";
import { isEnvFile, isPackageToolConfig, sensitiveMatch } from "./sensitive.js";
import type { Decision } from "./types.js";
import { hasInvisibleCharacters } from "./unicode.js";

/** The file-system calls path resolution makes; injectable so tests can swap a link in mid-check. */
export interface PathFs {
  lstat(path: string): fs.Stats;
  readlink(path: string): string;
  realpath(path: string): string;
}

export const nodePathFs: PathFs = {
  lstat: (path) => fs.lstatSync(path),
  readlink: (path) => fs.readlinkSync(path),
  realpath: (path) => fs.realpathSync.native(path),
};

const maxSymlinkHops = 40;

export type Resolution =
  | { ok: true; realPath: string; exists: boolean; stats: fs.Stats | null }
  | { ok: false; rule: string; reason: string };

/**
 * Resolves a path the way the kernel would: component by component from the working directory,
 * following every symlink (also dangling ones, since writing through them creates their target),
 * applying `..` to the real parent. Components past the deepest existing directory are appended
 * as written; a `..` among them is refused because nothing on disk pins what it would mean.
 */
/**
 * A path's components after `~`, the cwd and `.`/`..` are applied as text (no symlinks followed):
 * what the words say, checked before and beside what the file system resolves them to.
 */
export function absoluteComponents(text: string, context: Pick<PermissionContext, "home" | "cwd">): string[] {
  let path = text;
  if (path === "~" || path.startsWith("~/")) path = context.home + path.slice(1);
  if (!path.startsWith("/")) path = `${context.cwd}/${path}`;
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts;
}

export function resolveReal(
  rawPath: string,
  cwd: string,
  home: string,
  fsApi: PathFs = nodePathFs,
): Resolution {
  if (rawPath.includes("\0"))
    return { ok: false, rule: "path.invalid", reason: "the path contains a NUL byte" };
  if (rawPath.trim() === "") return { ok: false, rule: "path.invalid", reason: "the path is empty" };
  let path = rawPath;
  if (path === "~" || path.startsWith("~/")) path = home + path.slice(1);
  const pending = path.split("/").filter((part) => part !== "" && part !== ".");
  let current = isAbsolute(path) ? "/" : cwd;
  let hops = 0;
  let missingFrom = -1;
  const rest: string[] = [];
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (missingFrom >= 0) {
      if (part === "..") {
        return {
          ok: false,
          rule: "path.traversal",
          reason: `"${rawPath}" uses ".." below a directory that does not exist, so where it leads cannot be checked`,
        };
      }
      rest.push(part);
      continue;
    }
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const candidate = join(current, part);
    let stats: fs.Stats;
    try {
      stats = fsApi.lstat(candidate);
    } catch (error) {
      if (!isMissing(error)) return unreadable(rawPath, candidate, error);
      missingFrom = 0;
      rest.push(part);
      continue;
    }
    if (stats.isSymbolicLink()) {
      hops += 1;
      if (hops > maxSymlinkHops) {
        return {
          ok: false,
          rule: "path.symlink-loop",
          reason: `"${rawPath}" goes through more than ${maxSymlinkHops} symlinks`,
        };
      }
      let target: string;
      try {
        target = fsApi.readlink(candidate);
      } catch (error) {
        return unreadable(rawPath, candidate, error);
      }
      const targetParts = target.split("/").filter((p) => p !== "" && p !== ".");
      pending.unshift(...targetParts);
      if (isAbsolute(target)) current = "/";
      continue;
    }
    if (!stats.isDirectory() && pending.length > 0) {
      return { ok: false, rule: "path.invalid", reason: `"${candidate}" is not a directory` };
    }
    current = candidate;
  }
  const realPath = rest.length > 0 ? join(current, ...rest) : current;
  if (rest.length > 0) return { ok: true, realPath, exists: false, stats: null };
  // The walk saw each component once; if something was swapped since, the kernel's own answer differs.
  let confirmed: string;
  let finalStats: fs.Stats;
  try {
    confirmed = fsApi.realpath(realPath);
    finalStats = fsApi.lstat(confirmed);
  } catch (error) {
    if (isMissing(error)) {
      return {
        ok: false,
        rule: "path.changed-during-check",
        reason: `"${rawPath}" disappeared while it was being checked`,
      };
    }
    return unreadable(rawPath, realPath, error);
  }
  // Case-insensitive file systems report the stored case; that is the same file, not a swap.
  const caseOnly = process.platform !== "linux" && confirmed.toLowerCase() === realPath.toLowerCase();
  if (confirmed !== realPath && !caseOnly) {
    return {
      ok: false,
      rule: "path.changed-during-check",
      reason: `"${rawPath}" changed while it was being checked (it now leads to ${confirmed}); refusing rather than guessing`,
    };
  }
  return { ok: true, realPath: confirmed, exists: true, stats: finalStats };
}

/**
 * `/proc/1/cwd`, a folder without search permission: where the path leads cannot be known, so it is
 * refused rather than guessed (and the check never throws).
 */
function unreadable(rawPath: string, at: string, error: unknown): Resolution {
  const code = (error as NodeJS.ErrnoException | null)?.code ?? String(error);
  return {
    ok: false,
    rule: "path.unresolvable",
    reason: `"${rawPath}" cannot be resolved: ${at} is not readable (${code}), so where it leads cannot be checked`,
  };
}

/** Decides a read or write of one path. The caller must act on `resolvedPath`, not the raw path. */
export function checkPath(
  rawPath: string,
  access: "read" | "write",
  context: PermissionContext,
  fsApi: PathFs = nodePathFs,
): Decision {
  const subjectOf = (p: string) => `${access}:${p}`;
  const lexical = lexicalAbsolute(rawPath, context);
  const lexicalSensitive = sensitiveMatch(lexical, context.home, context.mercuryHome);
  if (lexicalSensitive) {
    return deny(
      "path.sensitive",
      `${rawPath} is ${lexicalSensitive.what}; it is off-limits in every mode`,
      subjectOf(lexical),
    );
  }
  const resolution = resolveReal(rawPath, context.cwd, context.home, fsApi);
  if (!resolution.ok)
    return {
      decision: "deny",
      rule: resolution.rule,
      reason: resolution.reason,
      subject: subjectOf(lexical),
    };
  const real = resolution.realPath;
  const subject = subjectOf(real);
  const realSensitive = sensitiveMatch(real, context.home, context.mercuryHome);
  if (realSensitive) {
    return deny(
      "path.sensitive",
      `${rawPath} resolves to ${real}, which is ${realSensitive.what}; it is off-limits in every mode`,
      subject,
      real,
    );
  }
  if (
    resolution.stats?.isFile() &&
    resolution.stats.nlink > 1 &&
    secretInodes(context.home, context.mercuryHome).has(inodeKey(resolution.stats))
  ) {
    return deny(
      "path.sensitive",
      `${rawPath} is a hard link to a secret file (same device and inode); it is off-limits in every mode`,
      subject,
      real,
    );
  }
  if (
    access === "write" &&
    (isMercuryState(real, context.mercuryHome) || isMercuryState(lexical, context.mercuryHome))
  ) {
    return deny(
      "path.mercury-state",
      `${rawPath} is inside Mercury's own folder (${context.mercuryHome}: configuration, soul, database, permission state, logs); the agent never changes it — settings change only through the user's own commands`,
      subject,
      real,
    );
  }
  if (
    access === "write" &&
    (insideGitFolder(lexical) || insideGitFolder(real) || inHooksFolder(real, context))
  ) {
    return ask(
      "path.git-internals",
      `${rawPath} is inside a .git folder (hooks, config, the gitdir link): what is written there runs later, outside the sandbox, when git or the user runs git; only a person approves it`,
      subject,
      real,
    );
  }
  if (access === "write" && (editorAutorun(lexical) || editorAutorun(real))) {
    return ask(
      "path.autorun",
      `${rawPath} is an editor setting that runs programs when the folder is opened (VS Code tasks with runOn folderOpen, interpreter and terminal paths): that runs later, outside the sandbox; only a person approves it`,
      subject,
      real,
    );
  }
  if (access === "write" && (toolAutorun(lexical) || toolAutorun(real))) {
    return ask(
      "path.autorun",
      `${rawPath} is read and run by another tool on its own (commit hooks' configuration, Mercurial hooks, pnpm's install hook, dev containers, R and Ruby consoles, vim's local rc, mise, JetBrains and VS Code run configurations, debugger init files, yarn's release and plugins, cargo's settings, Python's startup files, git attributes): that runs later, outside the sandbox; only a person approves it`,
      subject,
      real,
    );
  }
  if (hasInvisibleCharacters(rawPath)) {
    return ask("path.unicode", `${rawPath} contains invisible Unicode characters`, subject, real);
  }
  if (access === "write" && resolution.stats?.isFile() && resolution.stats.nlink > 1) {
    return deny(
      "path.hardlink",
      `${real} has ${resolution.stats.nlink} hard links; writing would also change the other names, which may lie outside the allowed folders. Copy it to a new file first if that is intended.`,
      subject,
      real,
    );
  }
  if (isEnvFile(real)) {
    return ask("path.env-file", `${real} is an environment file that usually holds secrets`, subject, real);
  }
  if (isPackageToolConfig(real)) {
    return ask(
      "path.env-file",
      `${real} is a package tool's settings file: it can hold registry tokens and names programs the tool runs later`,
      subject,
      real,
    );
  }
  const roots = access === "write" ? context.writeRoots : [...context.writeRoots, ...context.readRoots];
  if (!roots.some((root) => isWithin(real, root))) {
    const where = roots.length > 0 ? roots.join(", ") : "(none)";
    const shown = real === lexical ? real : `${rawPath} (really ${real})`;
    return ask(
      `path.outside-roots`,
      `${shown} is outside the folders allowed for ${access} (${where})`,
      subject,
      real,
    );
  }
  return {
    decision: "allow",
    rule: `path.${access}-root`,
    reason: `${real} is inside an allowed folder`,
    subject,
    resolvedPath: real,
  };
}

/** A file in the folder `core.hooksPath` names (`.husky/pre-commit`): git runs it, outside the sandbox. */
function inHooksFolder(real: string, context: PermissionContext): boolean {
  const hooks = hooksDirectory(real, context.home, context.env);
  return hooks !== null && (real === hooks || isWithin(real, hooks));
}

/** `.git/hooks/pre-commit`, `.git/config`, a `.git` file (its `gitdir:` line points git elsewhere). */
function insideGitFolder(path: string): boolean {
  return path.split(sep).includes(".git");
}

/** `.vscode/tasks.json`, `.vscode/settings.json`, a `*.code-workspace` file. */
function editorAutorun(path: string): boolean {
  const parts = path.split(sep);
  const name = parts[parts.length - 1] ?? "";
  if (name.endsWith(".code-workspace")) return true;
  return parts[parts.length - 2] === ".vscode" && (name === "tasks.json" || name === "settings.json");
}

/**
 * Files a tool runs by itself at the user's next unrelated action — a commit (`.pre-commit-config.yaml`,
 * lefthook, husky's hook scripts), any `hg` command (`.hg/hgrc` hooks), `pnpm install` (`.pnpmfile.cjs`),
 * opening the folder in a dev container, starting R/irb/pry or vim here.
 */
const autorunNames =
  /^(\.pre-commit-config\.ya?ml|\.?lefthook(-local)?\.(ya?ml|toml|json)|\.pnpmfile\.cjs|\.devcontainer\.json|\.Rprofile|\.irbrc|\.pryrc|\.exrc|\.nvimrc|\.nvim\.lua)$/;

function toolAutorun(path: string): boolean {
  const parts = path.split(sep);
  const name = parts[parts.length - 1] ?? "";
  if (autorunNames.test(name) || runLaterByTool(path)) return true;
  if (parts[parts.length - 2] === ".hg" && name === "hgrc") return true;
  return parts.slice(0, -1).some((part) => part === ".husky" || part === ".devcontainer");
}

function lexicalAbsolute(rawPath: string, context: PermissionContext): string {
  let path = rawPath;
  if (path === "~" || path.startsWith("~/")) path = context.home + path.slice(1);
  const joined = isAbsolute(path) ? path : join(context.cwd, path);
  return joined.length > 1 && joined.endsWith(sep) ? joined.slice(0, -1) : joined;
}

function deny(rule: string, reason: string, subject: string, resolvedPath?: string): Decision {
  const decision: Decision = { decision: "deny", rule, reason, subject };
  if (resolvedPath) decision.resolvedPath = resolvedPath;
  return decision;
}

function ask(rule: string, reason: string, subject: string, resolvedPath: string): Decision {
  return { decision: "ask", rule, reason, subject, resolvedPath };
}
