import type { ModelMessage } from "../model/types.js";

export const interruptedToolMessage =
  "interrupted: Mercury stopped (crash or kill) before this tool call finished, so its effect is unknown. " +
  "Check the current state before repeating it.";

function parts(message: ModelMessage): unknown[] {
  return Array.isArray(message.content) ? (message.content as unknown[]) : [];
}

function field(part: unknown, name: string): unknown {
  return typeof part === "object" && part !== null ? (part as Record<string, unknown>)[name] : undefined;
}

/**
 * A crash between a tool call and its result leaves the call unanswered in the transcript, and
 * providers refuse such a history. Before a resumed run, each unanswered call gets a result that
 * says plainly that it was interrupted: nothing is invented about what the tool did.
 */
export function closeDanglingToolCalls(history: readonly ModelMessage[]): ModelMessage[] {
  const calls = new Map<string, string>();
  for (const message of history) {
    for (const part of parts(message)) {
      const type = field(part, "type");
      const id = field(part, "toolCallId");
      if (typeof id !== "string") continue;
      if (message.role === "assistant" && type === "tool-call") {
        const name = field(part, "toolName");
        calls.set(id, typeof name === "string" ? name : "unknown");
      } else if (message.role === "tool" && type === "tool-result") {
        calls.delete(id);
      }
    }
  }
  if (calls.size === 0) return [];
  return [
    {
      role: "tool",
      content: [...calls].map(([toolCallId, toolName]) => ({
        type: "tool-result" as const,
        toolCallId,
        toolName,
        output: { type: "error-text" as const, value: interruptedToolMessage },
      })),
    },
  ];
}

/**
 * The calls a crash cut off, when the transcript ends with their repaired results (a run resuming
 * right after the repair): the resumed run reports them as interrupted tool errors.
 */
export function trailingInterruptedCalls(history: readonly ModelMessage[]): string[] {
  const names: string[] = [];
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index];
    if (message?.role !== "tool") break;
    for (const part of parts(message)) {
      const output = field(part, "output");
      if (field(output, "value") === interruptedToolMessage) {
        const name = field(part, "toolName");
        names.push(typeof name === "string" ? name : "unknown");
      }
    }
  }
  return names.reverse();
}
