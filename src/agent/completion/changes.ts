import { createHash } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { FileChange } from "../events.js";
import { defaultGitContainment, type GitContainment, runContainedGit } from "./contained-git.js";
import { runTreeBatch, type TreeBatch } from "./git-batch.js";
import {
  type DirectorySnapshot,
  defaultSnapshotLimits,
  diffSnapshots,
  type SnapshotLimits,
  splitLines,
  takeSnapshot,
} from "./snapshot.js";
import { ignoredListingDigest, skippedFoldersDigest } from "./unseen.js";

export interface ChangeReport {
  files: FileChange[];
  /** False when we could not tell (no baseline, git failed, snapshot hit its cap): never "no changes". */
  confirmed: boolean;
  method: "git" | "snapshot" | "none";
  note?: string;
  /** Paths (as in `files`) that did not exist at the baseline, and those that no longer exist. */
  created?: string[];
  deleted?: string[];
  /** The directory the paths are relative to (the repository's top, or the task's directory). */
  root?: string;
  /** The state compared against the baseline (for undo: was a file changed again since?). */
  after?: { kind: "git"; tree: string } | { kind: "snapshot"; hashes: Record<string, string> };
  /** A digest of the files the picture skips (git-ignored, or a snapshot's skipped folders): see unseen.ts. */
  unseen?: string;
}

/**
 * What the task's files are now, as one string (the git tree, or a digest of the snapshot's hashes);
 * null when the report cannot tell. A verification is evidence for the files it saw: the gate compares
 * this at the end with the value taken right after the run.
 */
export function workspaceFingerprint(report: ChangeReport): string | null {
  if (!report.confirmed || !report.after) return null;
  // Without the skipped files' digest a fingerprint would vouch for files it never looked at.
  if (report.unseen === undefined) return null;
  if (report.after.kind === "git") return `git:${report.after.tree}+${report.unseen}`;
  const entries = Object.entries(report.after.hashes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `snapshot:${createHash("sha256").update(JSON.stringify(entries)).digest("hex")}+${report.unseen}`;
}

/** Records the working tree before the task's first mutating call and diffs it at the end. */
export interface ChangeTracker {
  begin(): Promise<void>;
  report(): Promise<ChangeReport>;
  /** A file's content at the baseline (path relative to the report's root); null when absent or not kept. */
  baselineContent?(path: string): Promise<Buffer | null>;
}

/**
 * The baseline as the work ledger stores it (src/agent/evidence.ts), so "continue" and a restart
 * after a crash judge everything the task changed, not only what the last run did.
 */
export type StoredBaseline =
  /** `commonDir` is absent in baselines recorded before linked worktrees were handled: gitDir then. */
  | { kind: "git"; top: string; gitDir: string; commonDir?: string; tree: string }
  | {
      kind: "snapshot";
      root: string;
      /** Directory holding a copy of every file read in full (under MERCURY_HOME/baselines/). */
      store: string;
      truncated: boolean;
      problems: string[];
      /** path -> content hash (or size:mtime for files over the cap). */
      hashes: Record<string, string>;
    }
  | { kind: "failed"; note: string };

export interface ChangeTrackerOptions {
  /** A baseline recorded by an earlier run of the same task. */
  initial?: StoredBaseline | null;
  /** Where a snapshot baseline keeps its copies; without it the copies stay in memory only. */
  store?: string;
  /** Called once when a new baseline is taken, before the first change. */
  onBaseline?(baseline: StoredBaseline): void;
  /** Where Mercury's own git calls run (the OS sandbox: `git add` runs programs the repository names). */
  containment?: GitContainment;
}

type Baseline =
  | { kind: "git"; top: string; gitDir: string; commonDir: string; tree: string }
  | { kind: "snapshot"; snapshot: DirectorySnapshot; stored: StoredBaseline & { kind: "snapshot" } }
  | { kind: "failed"; note: string };

/**
 * Inside git: the whole working tree (tracked and untracked, minus ignored files) is written as a
 * tree object through a temporary index, before and after; `git diff --numstat` between the two
 * trees gives the task's own +/- even when the tree was already dirty. No ref, stash, index or file
 * of the user's repository changes (only unreferenced objects are added, which git gc prunes).
 * Outside git: a bounded directory snapshot (see snapshot.ts), its files copied to `options.store`.
 */
export function createChangeTracker(
  cwd: string,
  limits: SnapshotLimits = defaultSnapshotLimits,
  options: ChangeTrackerOptions = {},
): ChangeTracker {
  const containment = options.containment ?? defaultGitContainment();
  let baseline: Promise<Baseline> | null = options.initial ? restoreBaseline(options.initial) : null;
  return {
    begin() {
      baseline ??= takeBaseline(cwd, limits, containment, options.store).then((taken) => {
        options.onBaseline?.(storedForm(taken));
        return taken;
      });
      return baseline.then(() => undefined);
    },
    async baselineContent(path) {
      if (!baseline) return null;
      const start = await baseline;
      if (start.kind === "git") {
        const shown = await runContainedGit(["cat-file", "blob", `${start.tree}:${path}`], {
          top: start.top,
          containment,
        });
        return shown.code === 0 ? Buffer.from(shown.stdout) : null;
      }
      if (start.kind === "snapshot") return readKept(start.stored, path);
      return null;
    },
    async report() {
      if (!baseline) return { files: [], confirmed: true, method: "none", note: "no mutating tool ran" };
      const start = await baseline;
      try {
        if (start.kind === "failed") return { files: [], confirmed: false, method: "none", note: start.note };
        if (start.kind === "git") {
          // One contained launch: add, write-tree, both diffs and the ignored files (git-batch.ts).
          const batch = await writeWorkingTree(start, containment, start.tree);
          const tree = batch.tree;
          const statuses = parseNameStatus(batch.nameStatus ?? "");
          const unseen = await ignoredListingDigest(start.top, batch.ignored ?? "");
          return {
            files: parseNumstat(batch.numstat ?? ""),
            confirmed: true,
            method: "git",
            root: start.top,
            after: { kind: "git", tree },
            unseen,
            ...statuses,
          };
        }
        const after = await takeSnapshot(cwd, limits);
        const files = diffSnapshots(start.snapshot, after);
        const truncated = start.snapshot.truncated || after.truncated;
        const unseen = truncated ? undefined : await skippedFoldersDigest(cwd);
        return {
          files,
          confirmed: !truncated,
          method: "snapshot",
          root: cwd,
          after: {
            kind: "snapshot",
            hashes: Object.fromEntries([...after.files].map(([path, entry]) => [path, entry.hash])),
          },
          created: files.map((file) => file.path).filter((path) => !start.snapshot.files.has(path)),
          deleted: files.map((file) => file.path).filter((path) => !after.files.has(path)),
          ...(unseen !== undefined ? { unseen } : {}),
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
  store?: string,
): Promise<Baseline> {
  try {
    const probe = await runContainedGit(
      ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"],
      { top: cwd, containment },
    ).catch((error: unknown) => ({ code: -1, stdout: "", stderr: message(error) }));
    if (probe.code === 0) {
      const [top, gitDir, common] = probe.stdout.trim().split("\n");
      if (top && gitDir && common) {
        const repository = { top, gitDir, commonDir: resolve(cwd, common) };
        const { tree } = await writeWorkingTree(repository, containment, null);
        return { kind: "git", ...repository, tree };
      }
    }
    const directory = store ?? (await mkdtemp(join(tmpdir(), "mercury-baseline-")));
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const snapshot = await takeSnapshot(cwd, limits, async (path, content) => {
      const target = join(directory, "files", path);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await writeFile(target, content, { mode: 0o600 });
    });
    const hashes: Record<string, string> = {};
    for (const [path, entry] of snapshot.files) hashes[path] = entry.hash;
    return {
      kind: "snapshot",
      snapshot,
      stored: {
        kind: "snapshot",
        root: cwd,
        store: directory,
        truncated: snapshot.truncated,
        problems: snapshot.problems,
        hashes,
      },
    };
  } catch (error) {
    return { kind: "failed", note: `could not record the files before the change: ${message(error)}` };
  }
}

function storedForm(baseline: Baseline): StoredBaseline {
  return baseline.kind === "snapshot" ? baseline.stored : baseline;
}

async function readKept(stored: StoredBaseline & { kind: "snapshot" }, path: string): Promise<Buffer | null> {
  const hash = stored.hashes[path];
  if (hash === undefined || hash.startsWith("size:")) return null;
  try {
    return await readFile(join(stored.store, "files", path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Rebuilds the in-memory picture from what the ledger stored (the kept copies give the lines). */
async function restoreBaseline(stored: StoredBaseline): Promise<Baseline> {
  if (stored.kind === "git") return { ...stored, commonDir: stored.commonDir ?? stored.gitDir };
  if (stored.kind !== "snapshot") return stored;
  const files: DirectorySnapshot["files"] = new Map();
  for (const [path, hash] of Object.entries(stored.hashes)) {
    const content = await readKept(stored, path).catch(() => null);
    files.set(path, {
      hash,
      lines: content && !content.includes(0) ? splitLines(content.toString("utf8")) : null,
    });
  }
  return {
    kind: "snapshot",
    snapshot: { files, truncated: stored.truncated, problems: stored.problems },
    stored,
  };
}

/** `git diff --name-status -z` output: the paths created and deleted. */
function parseNameStatus(output: string): { created: string[]; deleted: string[] } {
  const fields = output.split("\0");
  const created: string[] = [];
  const deleted: string[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const status = fields[index];
    const path = fields[index + 1] as string;
    if (status === "A") created.push(path);
    if (status === "D") deleted.push(path);
  }
  return { created, deleted };
}

interface Repository {
  top: string;
  gitDir: string;
  commonDir: string;
}

/**
 * The working tree as a tree object (with `before`, also the diffs and the ignored files: a report),
 * through a temporary index in a scratch folder of Mercury's own, in one contained launch.
 */
async function writeWorkingTree(
  repository: Repository,
  containment: GitContainment,
  before: string | null,
): Promise<TreeBatch> {
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
    return await runTreeBatch(index, before, {
      top,
      scratch: [scratch],
      gitFolders: [gitDir, commonDir],
      containment,
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
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
