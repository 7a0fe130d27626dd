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
 * folder is the one its `commondir` file names. Returns why a folder is refused, or null.
 */
export function gitFolderRefusal(top: string, folders: readonly string[]): string | null {
  const realTop = realOrResolved(top);
  const gitDir = folders[0];
  for (const folder of folders) {
    const real = realOrResolved(folder);
    if (real === realTop || isInside(real, realTop)) continue;
    if (gitDir !== undefined && isLinkedWorktreeFolder(realTop, realOrResolved(gitDir), real)) continue;
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
  const pointer = readSmallFile(dotGit);
  if (pointer === null) return false;
  const named = /^gitdir: (.+)$/m.exec(pointer)?.[1];
  if (named === undefined || realOrResolved(resolve(top, named.trim())) !== gitDir) return false;
  const back = readSmallFile(join(gitDir, "gitdir"));
  if (back === null || realOrResolved(resolve(gitDir, back.trim())) !== realOrResolved(dotGit)) return false;
  const commonNamed = readSmallFile(join(gitDir, "commondir"));
  return commonNamed !== null && realOrResolved(resolve(gitDir, commonNamed.trim())) === common;
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
