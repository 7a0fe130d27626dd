import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { HostGitError, type ObjectStoreGit, objectStoreGit } from "../sandbox/host-git.js";
import type { TaskEvidence } from "./evidence.js";

export interface UndoFile {
  path: string;
  /** restore: write the baseline content back; delete: the task created it. */
  action: "restore" | "delete";
}

export interface UndoPlan {
  root: string;
  files: UndoFile[];
  /** Files changed again after the task (by someone else): undo refuses while there are any. */
  changedSince: string[];
  /** Files whose baseline content was not kept (over the snapshot's size cap, or the copy was pruned). */
  unavailable: string[];
  diff: string;
}

export class UndoError extends Error {
  override name = "UndoError";
}

/**
 * Undo runs on the host, in a repository the agent wrote: git here sees the repository's objects
 * only (sandbox/host-git.ts), never its config, attributes or hooks, so a clean filter, textconv or
 * fsmonitor hook the agent planted does not run. The price: a file the repository filters (git-lfs,
 * CRLF conversion) hashes unfiltered, differs from its blob, and undo refuses it as changed since.
 */
function withObjectGit<T>(gitDir: string, use: (git: ObjectStoreGit) => T): T {
  let git: ObjectStoreGit;
  try {
    git = objectStoreGit(gitDir);
  } catch (error) {
    if (error instanceof HostGitError) throw new UndoError(error.message);
    throw error;
  }
  try {
    return use(git);
  } catch (error) {
    if (error instanceof HostGitError) throw new UndoError(error.message);
    throw error;
  } finally {
    git.close();
  }
}

/**
 * A symbolic link on the way to a task's file, found by lstat from the root down (or the file itself
 * a link). Undo writes and deletes on the host: a later task could have turned `sub/` into a link to
 * a folder outside the workspace (its sandbox may create links to anywhere), so that "restore
 * sub/.profile" lands in the user's home (session 11). Such a file counts as changed since.
 */
function linkOnTheWay(root: string, path: string): string | null {
  let current = root;
  for (const part of path.split("/")) {
    current = join(current, part);
    try {
      if (lstatSync(current).isSymbolicLink()) return current;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new UndoError(`cannot inspect ${current}: ${(error as Error).message}`);
    }
  }
  return null;
}

function sha1(path: string): string | null {
  if (!existsSync(path)) return null;
  return createHash("sha1").update(readFileSync(path)).digest("hex");
}

/**
 * What undoing a task would do: restore every file the task changed to its baseline content, but
 * only when the file is still exactly as the task left it — otherwise someone changed it since and
 * undo would destroy their work, so it refuses and names the files.
 */
export function planUndo(evidence: TaskEvidence): UndoPlan {
  const baseline = evidence.baseline;
  const after = evidence.after;
  if (!baseline || !after) throw new UndoError("this task changed no files (no baseline was recorded)");
  if (baseline.kind === "failed")
    throw new UndoError(
      `the files before this task could not be recorded (${baseline.note}); nothing to restore`,
    );
  if (evidence.undoneAt) throw new UndoError(`this task was already undone at ${evidence.undoneAt}`);
  const root = after.root;
  const files: UndoFile[] = [];
  const changedSince: string[] = [];
  const unavailable: string[] = [];
  if (baseline.kind === "git") {
    return withObjectGit(baseline.gitDir, (git) => {
      for (const path of after.files) {
        const full = join(root, path);
        if (linkOnTheWay(root, path)) {
          changedSince.push(path);
          files.push({ path, action: "restore" });
          continue;
        }
        const expected = git.run(["rev-parse", "--verify", "--quiet", `${after.tree}:${path}`]);
        const current = existsSync(full) ? git.run(["hash-object", "--no-filters", "--", full]) : null;
        if ((expected?.toString().trim() ?? null) !== (current?.toString().trim() ?? null))
          changedSince.push(path);
        const before = git.run(["rev-parse", "--verify", "--quiet", `${baseline.tree}:${path}`]);
        files.push({ path, action: before ? "restore" : "delete" });
      }
      return { root, files, changedSince, unavailable, diff: diffOf(evidence, root, after.files, git) };
    });
  }
  for (const path of after.files) {
    const full = join(root, path);
    if (linkOnTheWay(root, path)) changedSince.push(path);
    const expected = after.hashes?.[path] ?? null;
    const current = expected?.startsWith("size:") ? sizeStamp(full) : sha1(full);
    if (expected !== current) changedSince.push(path);
    const before = baseline.hashes[path];
    if (before === undefined) files.push({ path, action: "delete" });
    else if (before.startsWith("size:") || !existsSync(join(baseline.store, "files", path)))
      unavailable.push(path);
    else files.push({ path, action: "restore" });
  }
  return { root, files, changedSince, unavailable, diff: diffOf(evidence, root, after.files, null) };
}

function sizeStamp(path: string): string | null {
  if (!existsSync(path)) return null;
  const info = statSync(path);
  return `size:${info.size}:mtime:${info.mtimeMs}`;
}

function diffOf(evidence: TaskEvidence, root: string, paths: string[], git: ObjectStoreGit | null): string {
  const baseline = evidence.baseline;
  if (!baseline || paths.length === 0) return "";
  if (baseline.kind === "git" && evidence.after?.tree && git) {
    return (
      git
        .run([
          "diff",
          "--no-color",
          "--no-renames",
          "--no-ext-diff",
          "--no-textconv",
          baseline.tree,
          evidence.after.tree,
          "--",
          ...paths,
        ])
        ?.toString() ?? ""
    );
  }
  if (baseline.kind !== "snapshot") return "";
  const parts: string[] = [];
  for (const path of paths) {
    const kept = join(baseline.store, "files", path);
    const before = existsSync(kept) ? kept : "/dev/null";
    const now = existsSync(join(root, path)) ? join(root, path) : "/dev/null";
    // diff exits 1 when the files differ: that is the normal case here, not an error.
    const result = spawnSync("diff", ["-u", "--label", `a/${path}`, "--label", `b/${path}`, before, now]);
    parts.push(result.stdout?.toString() ?? `(no diff program: ${path} changed)\n`);
  }
  return parts.join("");
}

/** Restores the plan's files (the caller checked `changedSince` is empty and the user confirmed). */
export function applyUndo(evidence: TaskEvidence, plan: UndoPlan): void {
  const baseline = evidence.baseline;
  if (!baseline || baseline.kind === "failed") throw new UndoError("no baseline to restore from");
  const restore = (read: (file: UndoFile) => Buffer) => {
    // All checked before any is touched: a refusal leaves the files as they were.
    for (const file of plan.files) {
      const link = linkOnTheWay(plan.root, file.path);
      if (link) throw new UndoError(`${link} is a symbolic link now: undo does not write through it`);
    }
    for (const file of plan.files) {
      const full = join(plan.root, file.path);
      if (file.action === "delete") {
        rmSync(full, { force: true });
        continue;
      }
      const content = read(file);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
  };
  if (baseline.kind === "git") {
    withObjectGit(baseline.gitDir, (git) =>
      restore((file) => {
        const blob = git.run(["cat-file", "blob", `${baseline.tree}:${file.path}`]);
        if (!blob) throw new UndoError(`the baseline of ${file.path} is not in the repository's objects`);
        return blob;
      }),
    );
    return;
  }
  restore((file) => readFileSync(join(baseline.store, "files", file.path)));
}
