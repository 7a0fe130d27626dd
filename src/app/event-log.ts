import type { AgentEvent, EventBus } from "../agent/events.js";
import type { Logger } from "./logger.js";

/**
 * What a log line may say about an event. Conversation content (what the user typed, the answer,
 * tool outputs, memory text) is never written: a log file outlives `memory forget`, so it carries
 * sizes and ids instead. Tool-call inputs are kept for shell-like tools (needed to audit what ran),
 * but not for memory tools, whose input is the memory itself.
 */
function contentFree(event: AgentEvent): Record<string, unknown> {
  const { type: _type, taskId: _task, sessionId: _session, userKey: _user, at: _at, ...details } = event;
  switch (event.type) {
    case "task-start":
      return { inputChars: event.input.length };
    case "memory-receipt":
      return { kind: event.kind };
    case "task-end": {
      const { text, ...rest } = event;
      const { type: _t, taskId: _k, sessionId: _s, userKey: _u, at: _a, ...kept } = rest;
      return { ...kept, textChars: text.length };
    }
    case "tool-result":
      return {
        callId: event.callId,
        toolName: event.toolName,
        ok: event.ok,
        outputChars: event.output.length,
      };
    case "tool-call":
      return event.toolName.startsWith("memory_")
        ? { callId: event.callId, toolName: event.toolName }
        : details;
    case "question":
      return { questionId: event.questionId, choices: event.choices.length };
    case "plan":
      return { items: event.items.length };
    default:
      return details;
  }
}

/** Structured log lines for everything except token deltas (too many, and they are in the transcript). */
export function logEvents(bus: EventBus, logger: Logger): () => void {
  return bus.subscribe((event) => {
    if (event.type === "text-delta" || event.type === "reasoning-delta" || event.type === "tool-output")
      return;
    const level = event.type === "notice" ? event.level : event.type === "provider-retry" ? "warn" : "info";
    logger[level](
      {
        event: event.type,
        taskId: event.taskId,
        sessionId: event.sessionId,
        userKey: event.userKey,
        ...contentFree(event),
      },
      event.type,
    );
  });
}
