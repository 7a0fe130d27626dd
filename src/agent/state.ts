import type { ModelMessage } from "../model/types.js";
import type { StoredMessage } from "../storage/transcripts.js";
import type { UsageTotals, VerificationRecord } from "./events.js";
import { interruptedToolMessage, trailingInterruptedCalls } from "./ledger-repair.js";

export interface ToolFailureRecord {
  toolName: string;
  error: string;
  step: number;
}

export interface PlanItemState {
  text: string;
  done: boolean;
}

/** The mutable state of one task; the loop reads and updates it, nothing else does. */
export class TaskState {
  history: StoredMessage[];
  steps = 0;
  truncationContinuations = 0;
  readonly usage: UsageTotals = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
  mutatingSuccesses = 0;
  lastMutationStep = -1;
  lastToolFailure: ToolFailureRecord | null = null;
  /** Every failed tool call of this run, for the report (`toolErrors` in --json). */
  readonly toolErrors: ToolFailureRecord[] = [];
  finalText = "";
  /** The last reply hit the output limit without tool calls: the next one continues its text. */
  continuingText = false;
  /** The task's checklist as last set through update_plan. */
  plan: PlanItemState[] = [];
  /** How many plan items turned done over the task (progress for auto-continue and the guard). */
  planItemsClosed = 0;
  /** Monotonic counter over tool calls: orders changes against verification runs. */
  callSequence = 0;
  /** Sequence number of the last call that may have changed files (verification runs excluded). */
  lastChangeSequence = -1;
  /**
   * Verification runs of the task; `fingerprint` is the task's files right after the run (see
   * workspaceFingerprint), absent when they could not be told.
   */
  readonly verifications: (VerificationRecord & { sequence: number; fingerprint?: string })[] = [];
  verificationFixRounds = 0;
  /**
   * Checks this run meant to run that produced no evidence: a verification the authorizer refused,
   * a sub-agent whose own check was refused or failed. `why` is said beside an answer that claims more.
   * `change`: a change that failed, which no later check bears out (the check ran on the code without it).
   */
  readonly uncheckedClaims: { sequence: number; why: string; change?: true }[] = [];
  /** Step at which the current step budget began (auto-continue starts a fresh one). */
  budgetStartStep = 0;
  continuations = 0;
  progressMark = { mutating: 0, closed: 0 };
  guardRounds = 0;
  /** Provider rotations by the narration guard (each starts the chain one provider further). */
  rotations = 0;
  guardRoundsSinceProgress = 0;
  guardProgressMark = { mutating: 0, closed: 0 };
  lastGuardProgressStep = 0;
  maxOutputTokens = 0;
  heapPressureStreak = 0;
  summaries = 0;

  constructor(
    readonly taskId: string,
    readonly sessionId: string,
    readonly userKey: string,
    history: StoredMessage[],
  ) {
    this.history = [...history];
    // A run that resumes right after a crash's repair reports the calls the crash cut off.
    for (const toolName of trailingInterruptedCalls(history.map((stored) => stored.message)))
      this.toolErrors.push({ toolName, error: interruptedToolMessage, step: 0 });
  }

  addUsage(delta: UsageTotals): void {
    this.usage.inputTokens += delta.inputTokens;
    this.usage.outputTokens += delta.outputTokens;
    this.usage.costUsd += delta.costUsd;
  }

  append(stored: StoredMessage[]): void {
    this.history.push(...stored);
  }

  /** Replaces the plan from an update_plan call and counts items that turned done. */
  setPlan(items: PlanItemState[]): void {
    const wasDone = new Set(this.plan.filter((item) => item.done).map((item) => item.text));
    this.planItemsClosed += items.filter((item) => item.done && !wasDone.has(item.text)).length;
    this.plan = items.map((item) => ({ text: item.text, done: item.done }));
  }

  progressSince(mark: { mutating: number; closed: number }): boolean {
    return this.mutatingSuccesses > mark.mutating || this.planItemsClosed > mark.closed;
  }

  markNow(): { mutating: number; closed: number } {
    return { mutating: this.mutatingSuccesses, closed: this.planItemsClosed };
  }

  /** Messages of this task, in order (for the final answer and the work ledger). */
  ownMessages(): ModelMessage[] {
    return this.history.filter((entry) => entry.taskId === this.taskId).map((entry) => entry.message);
  }
}
