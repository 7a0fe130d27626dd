import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { procStat } from "./process-ledger.js";

/**
 * Which live Mercury process runs a task. The ledger's "running" is also what a kill -9 leaves
 * behind, so before a task is resumed as crashed (a daemon's start, a `run --continue` in another
 * terminal) this tells a live owner from a dead one: resuming a live task ran it twice, and the
 * second run could report "completed" while the first was still changing the files.
 * One small file per running task under MERCURY_HOME/running/ (pid and its start time, so a reused
 * pid is no owner); a kill -9 leaves it, and a dead pid in it means nobody.
 */
export function claimTask(home: string, taskId: string): () => void {
  // Claimed already by this process (`mercury run` claims before the ledger marks the task running,
  // the agent inside again): the outer claim is released by its holder, after the ledger's end.
  if (liveOwner(home, taskId)?.pid === process.pid) return () => {};
  const directory = join(home, "running");
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const file = join(directory, fileName(taskId));
  const start = procStat(process.pid)?.startTime ?? -1;
  writeFileSync(file, JSON.stringify({ pid: process.pid, start }), { mode: 0o600 });
  return () => {
    // Only our own claim: a later process may have claimed the task since (after we were stopped).
    if (liveOwner(home, taskId)?.pid === process.pid) rmSync(file, { force: true });
  };
}

/** Removes this process's claim of the task, if it still holds it. */
export function releaseTask(home: string, taskId: string): void {
  if (liveOwner(home, taskId)?.pid === process.pid)
    rmSync(join(home, "running", fileName(taskId)), { force: true });
}

/** The live process that claimed the task, or null (never claimed, finished, or its process died). */
export function liveOwner(home: string, taskId: string): { pid: number } | null {
  let text: string;
  try {
    text = readFileSync(join(home, "running", fileName(taskId)), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  let claim: unknown;
  try {
    claim = JSON.parse(text);
  } catch {
    // A claim cut off by a crash while it was written: its writer is gone.
    return null;
  }
  if (typeof claim !== "object" || claim === null) return null;
  const { pid, start } = claim as { pid?: unknown; start?: unknown };
  if (typeof pid !== "number" || typeof start !== "number") return null;
  const now = procStat(pid);
  // A zombie (killed, not yet reaped by a parent that never waits) runs nothing.
  return now && now.startTime === start && now.state !== "Z" && now.state !== "X" ? { pid } : null;
}

function fileName(taskId: string): string {
  return `${taskId.replace(/[^\w.-]/g, "_")}.json`;
}
