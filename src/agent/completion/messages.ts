import type { ModelMessage } from "../../model/types.js";
import type { StoredMessage } from "../../storage/transcripts.js";
import type { UsageTotals } from "../events.js";

/**
 * The SDK answers an invalid or unknown tool call with its own error result; we execute (and answer)
 * every call ourselves, so those are dropped to keep exactly one result per call.
 */
export function withoutSdkToolResults(messages: readonly ModelMessage[]): ModelMessage[] {
  const kept: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role !== "tool") {
      kept.push(message);
      continue;
    }
    const content = message.content.filter((part) => part.type !== "tool-result");
    if (content.length > 0) kept.push({ ...message, content });
  }
  return kept;
}

export function sumUsage(attempts: readonly UsageTotals[]): UsageTotals {
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
export function prepareMessages(window: StoredMessage[], taskId: string): ModelMessage[] {
  return window.map((entry) => {
    const message = entry.message;
    if (message.role !== "assistant" || entry.taskId === taskId || typeof message.content === "string")
      return message;
    const content = message.content.filter((part) => part.type !== "reasoning");
    return { ...message, content };
  });
}
