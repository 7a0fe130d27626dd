import type { AttemptUsage, ModelMessage, ModelStepper, StepFailure } from "../model/types.js";
import type { StoredMessage } from "../storage/transcripts.js";
import type { AnyTool, ToolContext } from "../tools/types.js";
import type { BudgetCheck } from "./budget.js";
import type { AgentEventBody, EndCause, Outcome, UsageTotals } from "./events.js";
import { boundHistory } from "./history.js";
import type { TaskState } from "./state.js";
import { executeToolCall, toolResultMessage } from "./tool-executor.js";

export interface LoopDependencies {
  model: ModelStepper;
  tools: readonly AnyTool[];
  systemPrompt: string;
  maxSteps: number;
  maxOutputTokens: number;
  /** Tokens of history we may send (context window minus reply and system prompt). */
  historyBudgetTokens: number;
  signal: AbortSignal;
  emit(body: AgentEventBody): void;
  /** Writes messages to the transcript and returns them as stored. */
  persist(messages: ModelMessage[]): StoredMessage[];
  recordUsage(attempts: AttemptUsage[]): void;
  checkBudget(): BudgetCheck;
  /** User messages that arrived while the task ran (steering); each is taken once. */
  takeSteering(): string[];
  toolContext(callId: string): ToolContext;
}

export interface LoopResult {
  endCause: EndCause;
  outcome: Outcome;
  text: string;
  reason?: string;
}

const maxTruncationContinuations = 3;
const truncationNudge =
  "Your previous reply was cut off by the output token limit. Continue exactly where you stopped, without repeating. " +
  "If you were writing a file, write it in smaller sections (several write or edit calls) instead of one large call.";

/**
 * The agent loop: single model steps, tools executed by us, every message persisted as it happens.
 * It never throws for model or tool failures; it returns how the task ended, from facts only.
 */
export async function runAgentLoop(deps: LoopDependencies, state: TaskState): Promise<LoopResult> {
  for (;;) {
    if (deps.signal.aborted) return aborted(state);

    const steering = deps.takeSteering();
    if (steering.length > 0) {
      state.append(deps.persist(steering.map((text) => ({ role: "user", content: text }))));
    }

    const budget = deps.checkBudget();
    if (!budget.ok) {
      deps.emit({ type: "notice", level: "warn", message: `Paused: ${budget.message}` });
      return { endCause: "aborted", outcome: "paused", text: state.finalText, reason: budget.message };
    }

    state.steps += 1;
    const step = state.steps;
    const messages = prepareMessages(boundHistory(state.history, deps.historyBudgetTokens), state.taskId);
    const result = await deps.model.step(
      { system: deps.systemPrompt, messages, tools: [...deps.tools], maxOutputTokens: deps.maxOutputTokens },
      deps.signal,
      {
        onStepStart: ({ provider, model }) => deps.emit({ type: "step-start", step, provider, model }),
        onTextDelta: (text) => deps.emit({ type: "text-delta", text }),
        onReasoningDelta: (text) => deps.emit({ type: "reasoning-delta", text }),
        onRetry: (info) => deps.emit({ type: "provider-retry", ...info }),
        onFallback: (info) => deps.emit({ type: "provider-fallback", ...info }),
      },
    );
    const stepUsage = sumUsage(result.attempts);
    state.addUsage(stepUsage);
    deps.recordUsage(result.attempts);

    if (!result.ok) return modelFailure(result, state, deps);

    state.append(deps.persist(result.responseMessages));
    deps.emit({ type: "step-finish", step, finishReason: result.finishReason, usage: stepUsage });
    if (result.text.trim() !== "") state.finalText = result.text;

    if (result.toolCalls.length > 0) {
      for (const call of result.toolCalls) {
        deps.emit({ type: "tool-call", callId: call.callId, toolName: call.toolName, input: call.input });
        const executed = await executeToolCall(call, deps.tools, deps.toolContext(call.callId));
        const output = executed.result.ok ? executed.result.output : executed.result.error;
        deps.emit({
          type: "tool-result",
          callId: call.callId,
          toolName: call.toolName,
          ok: executed.result.ok,
          output,
        });
        if (executed.result.ok && executed.tool?.mutating) {
          state.mutatingSuccesses += 1;
          state.lastMutationStep = step;
        }
        if (!executed.result.ok)
          state.lastToolFailure = { toolName: call.toolName, error: executed.result.error, step };
        state.append(deps.persist([toolResultMessage(executed)]));
      }
      if (deps.signal.aborted) return aborted(state);
      if (state.steps >= deps.maxSteps) {
        const reason = `the step budget (${deps.maxSteps} steps) ran out while the task was still calling tools. Say "continue" to resume.`;
        return { endCause: "steps-exhausted", outcome: "paused", text: state.finalText, reason };
      }
      continue;
    }

    if (result.finishReason === "length") {
      if (state.truncationContinuations < maxTruncationContinuations && state.steps < deps.maxSteps) {
        state.truncationContinuations += 1;
        state.append(deps.persist([{ role: "user", content: truncationNudge }]));
        continue;
      }
      return {
        endCause: "truncated",
        outcome: "paused",
        text: state.finalText,
        reason:
          'the answer kept hitting the output token limit; raise agent.maxOutputTokens or say "continue".',
      };
    }

    // A message that arrived during the last step is answered before the task ends.
    const lateSteering = deps.takeSteering();
    if (lateSteering.length > 0) {
      state.append(deps.persist(lateSteering.map((text) => ({ role: "user", content: text }))));
      if (state.steps < deps.maxSteps) continue;
    }
    return {
      endCause: "text-stop",
      outcome: state.mutatingSuccesses > 0 ? "completed" : "responded",
      text: state.finalText,
    };
  }
}

function aborted(state: TaskState): LoopResult {
  return { endCause: "aborted", outcome: "cancelled", text: state.finalText, reason: "stopped by the user" };
}

function modelFailure(result: StepFailure, state: TaskState, deps: LoopDependencies): LoopResult {
  if (result.kind === "aborted") return aborted(state);
  deps.emit({ type: "notice", level: "error", message: result.message });
  return { endCause: "interrupted", outcome: "failed", text: state.finalText, reason: result.message };
}

function sumUsage(attempts: readonly UsageTotals[]): UsageTotals {
  return attempts.reduce(
    (total, attempt) => ({
      inputTokens: total.inputTokens + attempt.inputTokens,
      outputTokens: total.outputTokens + attempt.outputTokens,
      costUsd: total.costUsd + attempt.costUsd,
    }),
    { inputTokens: 0, outputTokens: 0, costUsd: 0 },
  );
}

/**
 * Reasoning is replayed only inside the running task (DeepSeek needs `reasoning_content` back while
 * a tool loop is in progress, and rejects or ignores it from earlier turns).
 */
function prepareMessages(window: StoredMessage[], taskId: string): ModelMessage[] {
  return window.map((entry) => {
    const message = entry.message;
    if (message.role !== "assistant" || entry.taskId === taskId || typeof message.content === "string")
      return message;
    const content = message.content.filter((part) => part.type !== "reasoning");
    return { ...message, content };
  });
}
