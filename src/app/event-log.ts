import type { EventBus } from "../agent/events.js";
import type { Logger } from "./logger.js";

/** Structured log lines for everything except token deltas (too many, and they are in the transcript). */
export function logEvents(bus: EventBus, logger: Logger): () => void {
  return bus.subscribe((event) => {
    if (event.type === "text-delta" || event.type === "reasoning-delta" || event.type === "tool-output")
      return;
    const level = event.type === "notice" ? event.level : event.type === "provider-retry" ? "warn" : "info";
    const { type, taskId, sessionId, userKey, at: _at, ...details } = event;
    logger[level]({ event: type, taskId, sessionId, userKey, ...details }, type);
  });
}
