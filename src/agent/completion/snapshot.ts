import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import type { FileChange } from "../events.js";

/**
 * A before/after picture of a directory outside git. Bounded so a task in a huge folder stays cheap:
 * node_modules, .git, dist, target and virtualenvs are skipped, at most `maxFiles` files are recorded,
 * and files over `maxFileBytes` (or once `maxTotalBytes` have been read) are compared by size and
 * mtime only (their line counts are reported as 0). Past the file cap, or when a directory or file
 * cannot be read, the snapshot is marked incomplete and "no changes" is never claimed from it.
 */
export interface SnapshotLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes?: number;
}

export const defaultSnapshotLimits: SnapshotLimits = {
  maxFiles: 5000,
  maxFileBytes: 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
};

export const skippedDirectories = new Set([
  ".git",
  "node_modules",
  ".hg",
  ".svn",
  "__pycache__",
  ".venv",
  "target",
  "dist",
]);

interface FileEntry {
  hash: string;
  /** Lines of text files within the size cap; null for large or binary files. */
  lines: string[] | null;
}

export interface DirectorySnapshot {
  files: Map<string, FileEntry>;
  /** True when the walk stopped at maxFiles or met unreadable entries: some changes may be invisible. */
  truncated: boolean;
  /** What made it incomplete, for the report. */
  problems: string[];
}

/**
 * `keep` receives the content of every file read in full (a task's baseline keeps them, so undo and
 * a resumed run can compare against the files as they were).
 */
export async function takeSnapshot(
  root: string,
  limits: SnapshotLimits = defaultSnapshotLimits,
  keep?: (path: string, content: Buffer) => Promise<void>,
): Promise<DirectorySnapshot> {
  const files = new Map<string, FileEntry>();
  const problems: string[] = [];
  let truncated = false;
  let bytesRead = 0;
  const totalCap = limits.maxTotalBytes ?? Number.POSITIVE_INFINITY;
  const pending = [root];
  while (pending.length > 0) {
    const directory = pending.pop() as string;
    const entries = await readdir(directory, { withFileTypes: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (directory === root) throw error;
        truncated = true;
        problems.push(`${relative(root, directory)}: ${error.code ?? error.message}`);
        return [];
      },
    );
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const full = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!skippedDirectories.has(entry.name)) pending.push(full);
        continue;
      }
      if (!entry.isFile()) continue;
      if (files.size >= limits.maxFiles) {
        // Past the cap the picture is incomplete anyway; stop walking rather than list the rest.
        return { files, truncated: true, problems };
      }
      const path = relative(root, full);
      try {
        const info = await stat(full);
        if (info.size > limits.maxFileBytes || bytesRead + info.size > totalCap) {
          files.set(path, { hash: `size:${info.size}:mtime:${info.mtimeMs}`, lines: null });
          continue;
        }
        const content = await readFile(full);
        bytesRead += content.length;
        if (keep) await keep(path, content);
        const hash = createHash("sha1").update(content).digest("hex");
        const binary = content.includes(0);
        files.set(path, { hash, lines: binary ? null : splitLines(content.toString("utf8")) });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // Deleted between readdir and read: simply not there.
        if (code === "ENOENT") continue;
        truncated = true;
        problems.push(`${path}: ${code ?? String(error)}`);
      }
    }
  }
  return { files, truncated, problems };
}

export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Per-file +/- between two snapshots, sorted by path. */
export function diffSnapshots(before: DirectorySnapshot, after: DirectorySnapshot): FileChange[] {
  const changes: FileChange[] = [];
  const paths = new Set([...before.files.keys(), ...after.files.keys()]);
  for (const path of [...paths].sort()) {
    const old = before.files.get(path);
    const next = after.files.get(path);
    if (old && next && old.hash === next.hash) continue;
    const counts = lineDiff(old?.lines ?? [], next?.lines ?? []);
    changes.push({ path, ...counts });
  }
  return changes;
}

/**
 * Lines added/removed by a longest-common-subsequence diff (what `git diff --numstat` counts).
 * Quadratic, so beyond 2,000,000 cells it falls back to counting lines as multisets.
 */
export function lineDiff(
  before: readonly string[],
  after: readonly string[],
): { added: number; removed: number } {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const a = before.slice(start, endBefore);
  const b = after.slice(start, endAfter);
  if (a.length * b.length > 2_000_000) return multisetDiff(a, b);
  let previous = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      current[j] =
        a[i - 1] === b[j - 1]
          ? (previous[j - 1] as number) + 1
          : Math.max(previous[j] as number, current[j - 1] as number);
    }
    previous = current;
  }
  const common = previous[b.length] as number;
  return { added: b.length - common, removed: a.length - common };
}

function multisetDiff(a: readonly string[], b: readonly string[]): { added: number; removed: number } {
  const counts = new Map<string, number>();
  for (const line of a) counts.set(line, (counts.get(line) ?? 0) + 1);
  let common = 0;
  for (const line of b) {
    const left = counts.get(line) ?? 0;
    if (left > 0) {
      common++;
      counts.set(line, left - 1);
    }
  }
  return { added: b.length - common, removed: a.length - common };
}
