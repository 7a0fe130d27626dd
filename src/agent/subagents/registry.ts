import type { Outcome } from "../events.js";

export interface SubagentEntry {
  id: string;
  parentTaskId: string;
  userKey: string;
  task: string;
  cwd: string;
  depth: number;
  status: "waiting" | "running" | Outcome;
  startedAt: string;
  controller: AbortController;
}

export interface SubagentLimits {
  /** How deep delegation may go: 1 means children cannot delegate. */
  maxDepth: number;
  /** Children one parent task may start in all. */
  maxChildrenPerParent: number;
  /** Children of one parent running at the same time; the rest wait. */
  maxConcurrent: number;
}

export const defaultSubagentLimits: SubagentLimits = {
  maxDepth: 1,
  maxChildrenPerParent: 5,
  maxConcurrent: 3,
};

/** The child agents of this process: who started them, what they do, and how to stop them. */
export class SubagentRegistry {
  private readonly entries = new Map<string, SubagentEntry>();
  private readonly started = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  /** Reserves the next child number of a parent, or null at the limit. */
  reserve(parentTaskId: string, limit: number): number | null {
    const count = this.started.get(parentTaskId) ?? 0;
    if (count >= limit) return null;
    this.started.set(parentTaskId, count + 1);
    return count + 1;
  }

  add(entry: SubagentEntry): void {
    this.entries.set(entry.id, entry);
  }

  /** Waits for a running slot among the parent's children (bounded concurrency). */
  async acquire(entry: SubagentEntry, maxConcurrent: number, signal: AbortSignal): Promise<void> {
    while (this.runningChildren(entry.parentTaskId) >= maxConcurrent) {
      if (signal.aborted) throw signal.reason;
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(entry.parentTaskId) ?? [];
        queue.push(resolve);
        this.waiting.set(entry.parentTaskId, queue);
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    entry.status = "running";
  }

  finish(id: string, status: SubagentEntry["status"]): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.status = status;
    const queue = this.waiting.get(entry.parentTaskId) ?? [];
    this.waiting.delete(entry.parentTaskId);
    for (const wake of queue) wake();
  }

  runningChildren(parentTaskId: string): number {
    return [...this.entries.values()].filter(
      (entry) => entry.parentTaskId === parentTaskId && entry.status === "running",
    ).length;
  }

  list(userKey?: string): SubagentEntry[] {
    return [...this.entries.values()].filter((entry) => userKey === undefined || entry.userKey === userKey);
  }

  get(id: string): SubagentEntry | undefined {
    return this.entries.get(id);
  }

  /** Stops a child and, through its signal, every child it started. */
  stop(id: string, reason: string): boolean {
    const entry = this.entries.get(id);
    if (!entry || (entry.status !== "running" && entry.status !== "waiting")) return false;
    entry.controller.abort(new Error(reason));
    return true;
  }
}

/** A child's task id is its parent's plus `/child-<n>`: usage and audit sum by prefix. */
export function childTaskId(parentTaskId: string, index: number): string {
  return `${parentTaskId}/child-${index}`;
}

export function depthOf(taskId: string): number {
  return (taskId.match(/\/child-\d+/g) ?? []).length;
}
