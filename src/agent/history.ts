import type { StoredMessage } from "../storage/transcripts.js";

/**
 * The newest messages that fit in `budgetTokens`, never starting in the middle of a tool exchange:
 * the window always begins at a user message, so every tool result has its call. If even the latest
 * user message does not fit, it is still sent alone (the provider will say it is too long).
 */
export function boundHistory(messages: readonly StoredMessage[], budgetTokens: number): StoredMessage[] {
  let used = 0;
  let start = messages.length;
  let lastSafeStart = messages.length;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as StoredMessage;
    if (used + message.tokenEstimate > budgetTokens && lastSafeStart < messages.length) break;
    used += message.tokenEstimate;
    start = index;
    if (message.message.role === "user") lastSafeStart = index;
  }
  const begin = lastSafeStart < messages.length ? lastSafeStart : start;
  return messages.slice(begin);
}
