import type { ModelMessage } from "../model/types.js";
import type { StoredMessage } from "../storage/transcripts.js";
import type { UsageTotals } from "./events.js";

export interface ToolFailureRecord {
  toolName: string;
  error: string;
  step: number;
}

/** The mutable state of one task; the loop reads and updates it, nothing else does. */
export class TaskState {
  readonly history: StoredMessage[];
  steps = 0;
  truncationContinuations = 0;
  readonly usage: UsageTotals = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
  mutatingSuccesses = 0;
  lastMutationStep = -1;
  lastToolFailure: ToolFailureRecord | null = null;
  finalText = "";

  constructor(
    readonly taskId: string,
    readonly sessionId: string,
    readonly userKey: string,
    history: StoredMessage[],
  ) {
    this.history = [...history];
  }

  addUsage(delta: UsageTotals): void {
    this.usage.inputTokens += delta.inputTokens;
    this.usage.outputTokens += delta.outputTokens;
    this.usage.costUsd += delta.costUsd;
  }

  append(stored: StoredMessage[]): void {
    this.history.push(...stored);
  }

  /** Messages of this task, in order (for the final answer and the work ledger). */
  ownMessages(): ModelMessage[] {
    return this.history.filter((entry) => entry.taskId === this.taskId).map((entry) => entry.message);
  }
}
