import { type Dirent, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { configEntries } from "./git-config-text.js";
import { isInside } from "./workspace.js";

/**
 * Everything in a workspace that git reads and that can make it run a program later, outside the
 * sandbox: every `.git` entry (folder, `gitdir:` file or link) at any depth, every folder git takes for
 * a repository (a `.git` folder, a bare layout — `HEAD` beside `objects/` or `commondir` —, a folder a
 * `gitdir:` file or a `commondir` names, submodules' and worktrees' folders), and in each: `config`,
 * `config.worktree`, `commondir`, the hooks (and a `core.hooksPath` folder inside the workspace), and
 * config files those configs include. Snapshotted before and after a command (git-guard.ts).
 */
export type WatchedState =
  | { kind: "file"; bytes: Buffer; mode: number; unreadable?: true }
  | { kind: "link"; target: string }
  | { kind: "directory"; id: string }
  | { kind: "other" };

export type WatchedRole = "dot-git" | "config" | "commondir" | "hook" | "hooks-folder";

export interface WatchedEntry {
  role: WatchedRole;
  state: WatchedState;
}

export interface GitInventory {
  workspace: string;
  /** Absolute path → what is there now. */
  entries: Map<string, WatchedEntry>;
  /** Folders git takes for a repository, by `dev:inode` (a renamed `.git` keeps its inode). */
  repositoryIds: Map<string, string>;
  /** False when the walk stopped at its bound: only what it reached was compared. */
  complete: boolean;
  /**
   * Where each `.git` file and `commondir` leads, links followed, when it was read: a command can
   * leave their text alone and swap a link on the way (git-guard.ts compares these too).
   */
  leadsTo: Map<string, string>;
}

/** Folders walked at most; a workspace larger than this is compared in the part walked. */
const maxFolders = 100_000;
/** Hooks and configs larger than this are compared by size and time only. */
const maxBytes = 1024 * 1024;

export function takeInventory(workspace: string): GitInventory {
  const inventory: GitInventory = {
    workspace,
    entries: new Map(),
    repositoryIds: new Map(),
    complete: true,
    leadsTo: new Map(),
  };
  const repositories = new Set<string>();
  const addRepository = (folder: string) => visitRepository(inventory, repositories, folder);
  const stack = [workspace];
  let folders = 0;
  while (stack.length > 0) {
    const folder = stack.pop() as string;
    if (++folders > maxFolders) {
      inventory.complete = false;
      break;
    }
    const list = listOrEmpty(folder);
    if (looksLikeRepository(list) && folder !== workspace) {
      addRepository(folder);
      continue;
    }
    for (const entry of list) {
      const path = join(folder, entry.name);
      if (entry.name === ".git") {
        const state = stateOf(path);
        inventory.entries.set(path, { role: "dot-git", state });
        if (state.kind === "directory") addRepository(path);
        if (state.kind === "file") {
          const target = gitdirTarget(path, state.bytes.toString("utf8"));
          if (target) inventory.leadsTo.set(path, realOrSelf(target));
          if (target && reallyInside(target, workspace)) addRepository(target);
        }
        continue;
      }
      // Installed packages are not walked: git is not run inside them, and a JavaScript project's
      // node_modules holds tens of thousands of folders, walked twice per command.
      if (entry.isDirectory() && entry.name !== "node_modules") stack.push(path);
    }
  }
  if (looksLikeRepository(listOrEmpty(workspace))) addRepository(workspace);
  return inventory;
}

/** Where a `.git` file's `gitdir:` line points (resolved from the file's folder), or null. */
export function gitdirTarget(dotGitFile: string, text: string): string | null {
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!match?.[1]) return null;
  return resolveFrom(dirname(dotGitFile), match[1]);
}

function visitRepository(inventory: GitInventory, seen: Set<string>, folder: string): void {
  const real = realOrSelf(folder);
  if (seen.has(real) || seen.size > 10_000) return;
  seen.add(real);
  const own = stateOf(folder);
  if (own.kind === "directory") inventory.repositoryIds.set(own.id, folder);
  for (const name of ["config", "config.worktree"]) watchConfig(inventory, join(folder, name), 0);
  const commondir = join(folder, "commondir");
  const common = stateOf(commondir);
  if (common.kind !== "other" || existsEntry(commondir))
    inventory.entries.set(commondir, { role: "commondir", state: common });
  if (common.kind === "file") {
    const target = resolveFrom(folder, common.bytes.toString("utf8").trim());
    inventory.leadsTo.set(commondir, realOrSelf(target));
    if (reallyInside(target, inventory.workspace)) visitRepository(inventory, seen, target);
  }
  watchHooks(inventory, join(folder, "hooks"));
  for (const nested of ["modules", "worktrees"]) {
    const stack = [join(folder, nested)];
    while (stack.length > 0) {
      const current = stack.pop() as string;
      for (const entry of listOrEmpty(current)) {
        if (!entry.isDirectory()) continue;
        const path = join(current, entry.name);
        if (looksLikeRepository(listOrEmpty(path))) visitRepository(inventory, seen, path);
        else if (nested === "modules") stack.push(path);
      }
    }
  }
}

/** A config file, and (inside the workspace) the files it includes and the hooks folder it names. */
function watchConfig(inventory: GitInventory, path: string, depth: number): void {
  if (inventory.entries.has(path) || depth > 5) return;
  const state = stateOf(path);
  if (state.kind === "other" && !existsEntry(path)) return;
  inventory.entries.set(path, { role: "config", state });
  if (state.kind !== "file") return;
  for (const entry of configEntries(state.bytes.toString("utf8"))) {
    const separator = entry.indexOf("=");
    const name = entry.slice(0, separator);
    const value = entry.slice(separator + 1).trim();
    if (value === "" || value.startsWith("~")) continue;
    const isInclude = name === "include.path" || /^includeif\..+\.path$/.test(name);
    if (!isInclude && name !== "core.hookspath") continue;
    if (isInclude) {
      const target = resolveFrom(dirname(path), value);
      if (reallyInside(target, inventory.workspace)) watchConfig(inventory, target, depth + 1);
      continue;
    }
    // A relative hooksPath is taken from where git runs the hooks: the worktree's top (the folder
    // holding `.git`), or the repository itself when it is bare.
    const repository = dirname(path);
    const top = basename(repository) === ".git" ? dirname(repository) : repository;
    const target = resolveFrom(top, value);
    if (reallyInside(target, inventory.workspace)) watchHooks(inventory, target);
  }
}

function watchHooks(inventory: GitInventory, folder: string): void {
  if (inventory.entries.has(folder)) return;
  const state = stateOf(folder);
  if (state.kind === "other" && !existsEntry(folder)) return;
  inventory.entries.set(folder, { role: "hooks-folder", state });
  if (state.kind !== "directory") return;
  for (const entry of listOrEmpty(folder)) {
    // git runs a hook by its exact name; `*.sample` files (what `git init` copies) never run.
    if (entry.name.endsWith(".sample")) continue;
    const path = join(folder, entry.name);
    inventory.entries.set(path, { role: "hook", state: stateOf(path) });
  }
}

/** What git's discovery takes for a repository folder: HEAD with objects/ or a commondir. */
function looksLikeRepository(list: Dirent[]): boolean {
  const names = new Set(list.map((entry) => entry.name));
  return names.has("HEAD") && (names.has("objects") || names.has("commondir"));
}

function resolveFrom(folder: string, value: string): string {
  return isAbsolute(value) ? resolve(value) : resolve(folder, value);
}

function stateOf(path: string): WatchedState {
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(path);
  } catch {
    // Missing (or unreadable): recorded as "other", and a missing path is not entered at all.
    return { kind: "other" };
  }
  if (info.isDirectory()) return { kind: "directory", id: `${info.dev}:${info.ino}` };
  try {
    if (info.isSymbolicLink()) return { kind: "link", target: readlinkSync(path) };
    if (!info.isFile()) return { kind: "other" };
    const bytes =
      info.size <= maxBytes ? readFileSync(path) : Buffer.from(`size ${info.size} mtime ${info.mtimeMs}`);
    return { kind: "file", bytes, mode: info.mode & 0o7777 };
  } catch (error) {
    // Unreadable or replaced while read: recorded by what is known, so a later change still shows.
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return {
      kind: "file",
      bytes: Buffer.from(`unreadable ${code} mtime ${info.mtimeMs}`),
      mode: info.mode & 0o7777,
    };
  }
}

function existsEntry(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

function listOrEmpty(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    // Not a folder, gone, or unreadable: nothing in it to compare.
    return [];
  }
}

/**
 * `path` is inside `workspace` once links are followed. Found in session 9: a `.git` file naming
 * `link/.git`, with `link` swapped by the command to another repository outside, made the guard read
 * that repository's config as the workspace's, and "put back" the old one over it.
 */
export function reallyInside(path: string, workspace: string): boolean {
  let real = realOrSelf(path);
  // A missing path: its folder's real path decides (a link in the folder's path is followed).
  if (real === path) real = join(realOrSelf(dirname(path)), basename(path));
  return isInside(real, workspace);
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Missing: compared by its spelled path.
    return path;
  }
}

/** True when two recorded states are the same (content, mode, link target, folder identity). */
export function sameState(a: WatchedState | undefined, b: WatchedState | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.kind !== b.kind) return false;
  if (a.kind === "file" && b.kind === "file") return a.mode === b.mode && a.bytes.equals(b.bytes);
  if (a.kind === "link" && b.kind === "link") return a.target === b.target;
  if (a.kind === "directory" && b.kind === "directory") return a.id === b.id;
  return true;
}
