/**
 * The one typed event stream. The agent loop emits; the CLI, Telegram, storage and logs subscribe.
 * The loop never calls a channel.
 */

export type EndCause = "text-stop" | "steps-exhausted" | "interrupted" | "truncated" | "aborted";
export type Outcome = "completed" | "responded" | "paused" | "failed" | "cancelled";

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface FileChange {
  path: string;
  added: number;
  removed: number;
}

export interface VerificationRecord {
  command: string;
  exitCode: number | null;
  /** An exit 0 whose output reports failures or no tests (see completion/test-summary.ts): no pass. */
  outputSays?: "failures" | "no tests";
}

interface EventBase {
  taskId: string;
  sessionId: string;
  userKey: string;
  at: string;
}

export type AgentEventBody =
  | { type: "task-start"; input: string }
  | { type: "step-start"; step: number; provider: string; model: string }
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "tool-call"; callId: string; toolName: string; input: unknown }
  | { type: "tool-output"; callId: string; toolName: string; chunk: string }
  | { type: "tool-result"; callId: string; toolName: string; ok: boolean; output: string }
  | { type: "step-finish"; step: number; finishReason: string; usage: UsageTotals }
  | { type: "provider-retry"; provider: string; attempt: number; delayMs: number; cause: string }
  | { type: "provider-fallback"; from: string; to: string; cause: string }
  | {
      type: "approval-request";
      approvalId: string;
      summary: string;
      rule: string;
      expiresAt: string;
    }
  | { type: "approval-resolved"; approvalId: string; decision: string; by: string }
  | { type: "question"; questionId: string; question: string; choices: string[] }
  | { type: "plan"; items: { text: string; done: boolean }[] }
  | {
      type: "memory-receipt";
      kind: "remembered" | "updated" | "confirmed" | "failed" | "forgotten";
      text: string;
    }
  | { type: "notice"; level: "info" | "warn" | "error"; message: string }
  | {
      type: "task-end";
      outcome: Outcome;
      endCause: EndCause;
      text: string;
      /** Why the task paused or failed, in words the user can act on. */
      reason?: string;
      usage: UsageTotals;
      filesChanged: FileChange[];
      verification: VerificationRecord[];
    };

export type AgentEvent = EventBase & AgentEventBody;
export type AgentEventType = AgentEvent["type"];

export type AgentEventListener = (event: AgentEvent) => void;

/** A minimal synchronous bus: a listener that throws is reported on the bus, never dropped silently. */
export class EventBus {
  private readonly listeners = new Set<AgentEventListener>();
  private readonly failures: unknown[] = [];

  subscribe(listener: AgentEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: AgentEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.failures.push(error);
        process.emitWarning(`event listener failed on ${event.type}: ${String(error)}`);
      }
    }
  }

  /** Errors thrown by listeners, for tests and the daemon's health report. */
  listenerFailures(): readonly unknown[] {
    return this.failures;
  }
}
