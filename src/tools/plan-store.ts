/**
 * The checklist of each task, kept in memory per task id. The agent reads `openItems` to see what is
 * left; the lead subscribes with `onChange` to emit the "plan" event so channels show it live.
 */

export interface PlanItem {
  text: string;
  done: boolean;
}

export type PlanListener = (taskId: string, items: readonly PlanItem[]) => void;

export class PlanStore {
  private readonly plans = new Map<string, PlanItem[]>();
  private readonly listeners = new Set<PlanListener>();

  /** Replaces the task's whole plan and notifies subscribers. */
  set(taskId: string, items: readonly PlanItem[]): readonly PlanItem[] {
    const copy = items.map((item) => ({ text: item.text, done: item.done }));
    this.plans.set(taskId, copy);
    for (const listener of this.listeners) listener(taskId, copy);
    return copy;
  }

  get(taskId: string): readonly PlanItem[] {
    return this.plans.get(taskId) ?? [];
  }

  openItems(taskId: string): readonly PlanItem[] {
    return this.get(taskId).filter((item) => !item.done);
  }

  clear(taskId: string): void {
    this.plans.delete(taskId);
  }

  onChange(listener: PlanListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
