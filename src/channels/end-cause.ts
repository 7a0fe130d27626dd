import type { EndCause, Outcome } from "../agent/events.js";

/**
 * How a task's end is named on a screen or in a chat. The loop ends a task whose model step failed
 * on every provider (a rejected key, a 5xx, a stream cut before its end) with the end cause
 * `interrupted`, kept in --json for the contract; "failed (interrupted)" read like a stop by the user
 * or a crash, so the channels say what failed: the model provider (the reason says how).
 */
export function endCauseLabel(event: { outcome: Outcome; endCause: EndCause }): string {
  if (event.outcome === "failed" && event.endCause === "interrupted") return "the model provider failed";
  return event.endCause;
}
