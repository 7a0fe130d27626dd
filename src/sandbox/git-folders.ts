import { lstatSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { isInside, realOrResolved } from "./workspace.js";

/**
 * Whether git folders that a repository names (`git rev-parse --absolute-git-dir --git-common-dir`)
 * may be bound writable for Mercury's own git calls on `top`. Those answers come from files the
 * agent writes: a `.git` file (`gitdir: /elsewhere`), a `commondir` file, `core.worktree`. Found in
 * session 9: a workspace whose `.git` file named another repository's git folder got that folder bound
 * writable, hooks included, for a `git add` that runs the project's `core.hooksPath` hook
 * (`post-index-change`) and attribute filters. A folder is accepted when it is `top` or inside it, or
 * when it is the genuine linked worktree of `top`: `<common>/worktrees/<name>`, whose `gitdir` file
 * (outside the workspace, so not the agent's to forge) points back at `top/.git`, and whose common
 * folder is the one its `commondir` file names; or the genuine git folder of a submodule at `top`:
 * `…/modules/<name>`, whose config's `core.worktree` names `top` back. Returns why a folder is
 * refused, or null.
 */
export function gitFolderRefusal(top: string, folders: readonly string[]): string | null {
  const realTop = realOrResolved(top);
  const gitDir = folders[0];
  for (const folder of folders) {
    const real = realOrResolved(folder);
    if (real === realTop || isInside(real, realTop)) continue;
    if (gitDir !== undefined && isLinkedWorktreeFolder(realTop, realOrResolved(gitDir), real)) continue;
    if (gitDir !== undefined && isSubmoduleFolder(realTop, realOrResolved(gitDir), real)) continue;
    return `the repository at ${top} names ${folder} as its git folder, outside the project and not a linked worktree of it: Mercury does not make that folder writable`;
  }
  return null;
}

/** `gitDir` is `<common>/worktrees/<name>` of the worktree at `top`, and `folder` is it or `<common>`. */
function isLinkedWorktreeFolder(top: string, gitDir: string, folder: string): boolean {
  const common = dirname(dirname(gitDir));
  if (basename(dirname(gitDir)) !== "worktrees") return false;
  if (folder !== gitDir && folder !== common) return false;
  const dotGit = join(top, ".git");
  if (!pointsTo(top, gitDir)) return false;
  const back = readSmallFile(join(gitDir, "gitdir"));
  if (back === null || realOrResolved(resolve(gitDir, back.trim())) !== realOrResolved(dotGit)) return false;
  const commonNamed = readSmallFile(join(gitDir, "commondir"));
  return commonNamed !== null && realOrResolved(resolve(gitDir, commonNamed.trim())) === common;
}

/** `gitDir` is a submodule's `…/modules/<name>` whose `core.worktree` is `top`, and `folder` is it. */
function isSubmoduleFolder(top: string, gitDir: string, folder: string): boolean {
  if (folder !== gitDir || !gitDir.split("/").includes("modules")) return false;
  if (!pointsTo(top, gitDir)) return false;
  const config = readSmallFile(join(gitDir, "config"));
  const worktree = config === null ? undefined : /^\s*worktree\s*=\s*(.+?)\s*$/m.exec(config)?.[1];
  return worktree !== undefined && realOrResolved(resolve(gitDir, worktree)) === top;
}

/** `top/.git` is a file whose `gitdir:` line names `gitDir`. */
function pointsTo(top: string, gitDir: string): boolean {
  const pointer = readSmallFile(join(top, ".git"));
  const named = pointer === null ? undefined : /^gitdir: (.+)$/m.exec(pointer)?.[1];
  return named !== undefined && realOrResolved(resolve(top, named.trim())) === gitDir;
}

/** A regular file's text (never through a symlink), or null. */
function readSmallFile(path: string): string | null {
  try {
    if (!lstatSync(path).isFile()) return null;
    return readFileSync(path, "utf8");
  } catch {
    // Missing or unreadable: not the layout of a linked worktree.
    return null;
  }
}
