import type { ModelMessage, ModelStepper, StepResult } from "../../model/types.js";
import type { StoredMessage } from "../../storage/transcripts.js";
import { keptWhole } from "./compaction.js";

/** Summarize when the history is over this share of what we may send. */
export const summarizeAtShare = 0.8;
/** What stays verbatim after a summary, as a share of the history budget. */
const keepShare = 0.4;
const maxResultChars = 1500;

export const summarySystemPrompt =
  "You compress the earlier part of a conversation between a user and an AI agent so the agent can keep working. " +
  "Write a faithful summary in plain text. Preserve exactly: every identifier (file paths, function and variable names, " +
  "URLs, IDs, numbers, commands and their exit codes), decisions made, what was done and what failed, and every request " +
  "of the user that is still open. Do not invent anything. No preamble.";

export function historyTokens(history: readonly StoredMessage[]): number {
  return history.reduce((sum, entry) => sum + entry.tokenEstimate, 0);
}

/**
 * Where to cut: the newest messages within `keepShare` of the budget stay verbatim, starting at a
 * message that is not a tool result (so every tool result keeps the call before it). Null when there
 * is nothing older worth summarizing.
 */
export function summaryCut(history: readonly StoredMessage[], budgetTokens: number): number | null {
  let used = 0;
  let cut: number | null = null;
  for (let index = history.length - 1; index > 0; index--) {
    const entry = history[index] as StoredMessage;
    used += entry.tokenEstimate;
    if (used > budgetTokens * keepShare) break;
    if (entry.message.role !== "tool") cut = index;
  }
  // The newest message alone is over the keep share: cut right before the last user/assistant turn.
  if (cut === null) {
    for (let index = history.length - 1; index > 0; index--) {
      if ((history[index] as StoredMessage).message.role !== "tool") return index;
    }
    return null;
  }
  return cut;
}

/** The older messages as a plain-text transcript for the summarizer (tool output shortened). */
export function renderTranscript(messages: readonly ModelMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (typeof message.content === "string") {
      lines.push(`${message.role}: ${message.content}`);
      continue;
    }
    for (const part of message.content) {
      if (part.type === "text") lines.push(`${message.role}: ${part.text}`);
      else if (part.type === "tool-call")
        lines.push(`assistant called ${part.toolName}(${JSON.stringify(part.input)})`);
      else if (part.type === "tool-result") {
        const output = part.output;
        const value =
          output.type === "text" || output.type === "error-text" ? output.value : JSON.stringify(output);
        const short = value.length > maxResultChars ? `${value.slice(0, maxResultChars)} […]` : value;
        lines.push(`${part.toolName} ${output.type === "error-text" ? "failed" : "returned"}: ${short}`);
      }
    }
  }
  return lines.join("\n");
}

export async function summarizeOlder(
  model: ModelStepper,
  older: readonly StoredMessage[],
  maxOutputTokens: number,
  signal: AbortSignal,
): Promise<StepResult> {
  return model.step(
    {
      system: summarySystemPrompt,
      messages: [
        {
          role: "user",
          content: `Summarize this earlier part of the conversation:\n\n${renderTranscript(older.map((entry) => entry.message))}`,
        },
      ],
      tools: [],
      toolChoice: "none",
      maxOutputTokens,
    },
    signal,
  );
}

/** Texts of activated skills among messages about to be summarized: they are carried over verbatim. */
export function keptWholeTexts(messages: readonly StoredMessage[]): string[] {
  const texts: string[] = [];
  for (const { message } of messages) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && part.toolName === keptWhole && part.output.type === "text") {
        texts.push(part.output.value);
      }
    }
  }
  return texts;
}

export function summaryMessage(
  text: string,
  replaced: number,
  skillTexts: readonly string[] = [],
): StoredMessage {
  const kept =
    skillTexts.length > 0
      ? `\n\n[Skills loaded earlier in this conversation, kept verbatim]\n${skillTexts.join("\n\n")}`
      : "";
  const content = `[Summary by Mercury of ${replaced} earlier messages; the full transcript is kept in the database]\n${text}${kept}`;
  return {
    id: -1,
    taskId: null,
    message: { role: "user", content },
    tokenEstimate: Math.ceil(content.length / 4),
  };
}
