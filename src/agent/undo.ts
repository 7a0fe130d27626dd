import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
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

function git(root: string, args: string[]): Buffer | null {
  const result = spawnSync("git", args, { cwd: root, maxBuffer: 256 * 1024 * 1024 });
  if (result.error) throw new UndoError(`git could not run: ${result.error.message}`);
  return result.status === 0 ? result.stdout : null;
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
  for (const path of after.files) {
    const full = join(root, path);
    if (baseline.kind === "git") {
      const expected = git(root, ["rev-parse", "--verify", "--quiet", `${after.tree}:${path}`]);
      const current = existsSync(full) ? git(root, ["hash-object", "--", full]) : null;
      if ((expected?.toString().trim() ?? null) !== (current?.toString().trim() ?? null))
        changedSince.push(path);
      const before = git(root, ["rev-parse", "--verify", "--quiet", `${baseline.tree}:${path}`]);
      files.push({ path, action: before ? "restore" : "delete" });
    } else {
      const expected = after.hashes?.[path] ?? null;
      const current = expected?.startsWith("size:") ? sizeStamp(full) : sha1(full);
      if (expected !== current) changedSince.push(path);
      const before = baseline.hashes[path];
      if (before === undefined) files.push({ path, action: "delete" });
      else if (before.startsWith("size:") || !existsSync(join(baseline.store, "files", path)))
        unavailable.push(path);
      else files.push({ path, action: "restore" });
    }
  }
  return { root, files, changedSince, unavailable, diff: diffOf(evidence, root, after.files) };
}

function sizeStamp(path: string): string | null {
  if (!existsSync(path)) return null;
  const info = statSync(path);
  return `size:${info.size}:mtime:${info.mtimeMs}`;
}

function diffOf(evidence: TaskEvidence, root: string, paths: string[]): string {
  const baseline = evidence.baseline;
  if (!baseline || paths.length === 0) return "";
  if (baseline.kind === "git" && evidence.after?.tree) {
    return (
      git(root, [
        "diff",
        "--no-color",
        "--no-renames",
        baseline.tree,
        evidence.after.tree,
        "--",
        ...paths,
      ])?.toString() ?? ""
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
  for (const file of plan.files) {
    const full = join(plan.root, file.path);
    if (file.action === "delete") {
      rmSync(full, { force: true });
      continue;
    }
    const content =
      baseline.kind === "git"
        ? execFileSync("git", ["cat-file", "blob", `${baseline.tree}:${file.path}`], {
            cwd: plan.root,
            maxBuffer: 256 * 1024 * 1024,
          })
        : readFileSync(join(baseline.store, "files", file.path));
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}
