import { copyFile, mkdtemp, rm, stat, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { FileChange } from "../events.js";
import { defaultGitContainment, type GitContainment, runContainedGit } from "./contained-git.js";
import {
  type DirectorySnapshot,
  defaultSnapshotLimits,
  diffSnapshots,
  type SnapshotLimits,
  takeSnapshot,
} from "./snapshot.js";

export interface ChangeReport {
  files: FileChange[];
  /** False when we could not tell (no baseline, git failed, snapshot hit its cap): never "no changes". */
  confirmed: boolean;
  method: "git" | "snapshot" | "none";
  note?: string;
}

/** Records the working tree before the task's first mutating call and diffs it at the end. */
export interface ChangeTracker {
  begin(): Promise<void>;
  report(): Promise<ChangeReport>;
}

type Baseline =
  | { kind: "git"; top: string; gitDir: string; commonDir: string; tree: string }
  | { kind: "snapshot"; snapshot: DirectorySnapshot }
  | { kind: "failed"; note: string };

/**
 * Inside git: the whole working tree (tracked and untracked, minus ignored files) is written as a
 * tree object through a temporary index, before and after; `git diff --numstat` between the two
 * trees gives the task's own +/- even when the tree was already dirty. No ref, stash, index or file
 * of the user's repository changes (only unreferenced objects are added, which git gc prunes).
 * Outside git: a bounded directory snapshot (see snapshot.ts).
 */
export function createChangeTracker(
  cwd: string,
  limits: SnapshotLimits = defaultSnapshotLimits,
  containment: GitContainment = defaultGitContainment(),
): ChangeTracker {
  let baseline: Promise<Baseline> | null = null;
  return {
    begin() {
      baseline ??= takeBaseline(cwd, limits, containment);
      return baseline.then(() => undefined);
    },
    async report() {
      if (!baseline) return { files: [], confirmed: true, method: "none", note: "no mutating tool ran" };
      const start = await baseline;
      try {
        if (start.kind === "failed") return { files: [], confirmed: false, method: "none", note: start.note };
        if (start.kind === "git") {
          const tree = await writeWorkingTree(start, containment);
          return {
            files: await diffTrees(start.top, start.tree, tree, containment),
            confirmed: true,
            method: "git",
          };
        }
        const after = await takeSnapshot(cwd, limits);
        const files = diffSnapshots(start.snapshot, after);
        const truncated = start.snapshot.truncated || after.truncated;
        return {
          files,
          confirmed: !truncated,
          method: "snapshot",
          ...(truncated
            ? { note: snapshotNote(limits, [...start.snapshot.problems, ...after.problems]) }
            : {}),
        };
      } catch (error) {
        return {
          files: [],
          confirmed: false,
          method: "none",
          note: `could not compare the files: ${message(error)}`,
        };
      }
    },
  };
}

async function takeBaseline(
  cwd: string,
  limits: SnapshotLimits,
  containment: GitContainment,
): Promise<Baseline> {
  try {
    const probe = await runContainedGit(
      ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"],
      {
        top: cwd,
        containment,
      },
    ).catch((error: unknown) => ({ code: -1, stdout: "", stderr: message(error) }));
    if (probe.code === 0) {
      const [top, gitDir, common] = probe.stdout.trim().split("\n");
      if (top && gitDir && common) {
        const repository = { top, gitDir, commonDir: resolve(cwd, common) };
        return { kind: "git", ...repository, tree: await writeWorkingTree(repository, containment) };
      }
    }
    return { kind: "snapshot", snapshot: await takeSnapshot(cwd, limits) };
  } catch (error) {
    return { kind: "failed", note: `could not record the files before the change: ${message(error)}` };
  }
}

interface Repository {
  top: string;
  gitDir: string;
  commonDir: string;
}

async function writeWorkingTree(repository: Repository, containment: GitContainment): Promise<string> {
  const { top, gitDir, commonDir } = repository;
  const scratch = await mkdtemp(join(tmpdir(), "mercury-index-"));
  const index = join(scratch, "index");
  try {
    // Starting from a copy of the real index keeps git's stat cache, so only changed files are hashed.
    // The copy keeps the index's own mtime: git re-hashes "racy" entries (modified in the same second
    // the index was written) by comparing against it, and a fresh mtime would hide same-size edits.
    const original = join(gitDir, "index");
    const info = await stat(original).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    if (info) {
      await copyFile(original, index);
      await utimes(index, info.atime, info.mtime);
    }
    // git writes objects into the common git folder, which is outside `top` for a linked worktree.
    const git = { top, env: { GIT_INDEX_FILE: index }, writable: [scratch, gitDir, commonDir], containment };
    const add = await runContainedGit(["add", "-A", "--", "."], { ...git, timeoutMs: 120_000 });
    if (add.code !== 0) throw new Error(`git add failed: ${add.stderr.trim()}`);
    const tree = await runContainedGit(["write-tree"], git);
    if (tree.code !== 0) throw new Error(`git write-tree failed: ${tree.stderr.trim()}`);
    return tree.stdout.trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function diffTrees(
  top: string,
  before: string,
  after: string,
  containment: GitContainment,
): Promise<FileChange[]> {
  if (before === after) return [];
  const diff = await runContainedGit(
    ["diff", "--numstat", "--no-renames", "--no-ext-diff", "-z", before, after],
    {
      top,
      containment,
    },
  );
  if (diff.code !== 0) throw new Error(`git diff failed: ${diff.stderr.trim()}`);
  return parseNumstat(diff.stdout);
}

/** `added\tremoved\tpath\0` records; binary files report "-" and count as 0 lines. */
export function parseNumstat(output: string): FileChange[] {
  const changes: FileChange[] = [];
  for (const record of output.split("\0")) {
    if (record.trim() === "") continue;
    const [added, removed, ...rest] = record.split("\t");
    const path = rest.join("\t").replace(/^\n/, "");
    if (!path) throw new Error(`unexpected git numstat line: ${JSON.stringify(record)}`);
    changes.push({
      path,
      added: added === "-" ? 0 : Number(added),
      removed: removed === "-" ? 0 : Number(removed),
    });
  }
  return changes;
}

function snapshotNote(limits: SnapshotLimits, problems: string[]): string {
  if (problems.length === 0)
    return `more than ${limits.maxFiles} files: changes beyond the cap are not visible`;
  return `some entries could not be read (${problems.slice(0, 3).join("; ")}${problems.length > 3 ? "; …" : ""})`;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
