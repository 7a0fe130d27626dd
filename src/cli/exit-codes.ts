import type { Outcome } from "../agent/events.js";

/** `ask`: `mercury policy check` found that the action needs a person's approval. */
export const exitCodes = { success: 0, failure: 1, usage: 2, paused: 3, ask: 4 } as const;

export function exitCodeForOutcome(outcome: Outcome): number {
  switch (outcome) {
    case "completed":
    case "responded":
      return exitCodes.success;
    case "paused":
      return exitCodes.paused;
    case "failed":
    case "cancelled":
      return exitCodes.failure;
  }
}
