import type { DeliveryLedger } from "../agent/ledger-deliveries.js";
import { DeliveryStore } from "../channels/telegram/deliveries.js";
import { splitMarkdown } from "../channels/telegram/split.js";
import type { SqliteDatabase } from "../storage/database.js";

export interface DeliveryDeps {
  database: SqliteDatabase;
  deliveries: DeliveryLedger;
  /** Sends queued terminal answers to the attached terminals (the daemon's socket server). */
  flushTerminal?: () => void;
  /** Where Telegram messages go; null when the bot is not configured. */
  telegram: { token: string; apiRoot?: string } | null;
}

/** "terminal", "telegram:<chatId>" or "none"; anything else is refused when the job is created. */
export function validateDeliveryTarget(target: string): string {
  if (target === "terminal" || target === "none" || /^telegram:-?\d{1,20}$/.test(target)) return target;
  throw new Error(
    `delivery target "${target}" is not known; use "terminal", "telegram:<chat id>" (see \`mercury telegram list\`) or "none"`,
  );
}

/**
 * Delivers a run's message once, through the delivery records: a record per task and target
 * written before the send and marked after it, so a replay finds it sent and sends nothing.
 * Returns what happened, for the run's history.
 */
export async function deliverRunMessage(
  deps: DeliveryDeps,
  target: string,
  taskId: string,
  message: string,
): Promise<string> {
  if (target === "none") return "none";
  const record = deps.deliveries.record(taskId, target);
  if (record.status === "sent") return `sent to ${target} (earlier)`;
  if (target === "terminal") {
    // The terminal queue: the answer waits in the ledger until a terminal is attached.
    deps.flushTerminal?.();
    const after = deps.deliveries.get(taskId, target);
    return after?.status === "sent"
      ? "sent to terminal"
      : "queued for the terminal (shown when one attaches)";
  }
  const chatId = Number(target.slice("telegram:".length));
  if (!deps.telegram) {
    deps.deliveries.markAttemptFailed(record.id, "Telegram is not configured (TELEGRAM_BOT_TOKEN)");
    return "not delivered: Telegram is not configured (set TELEGRAM_BOT_TOKEN and telegram.enabled)";
  }
  // grammY loads only when a scheduled answer actually goes to Telegram.
  const { Api } = await import("grammy");
  const api = new Api(
    deps.telegram.token,
    deps.telegram.apiRoot === undefined ? {} : { apiRoot: deps.telegram.apiRoot },
  );
  const store = new DeliveryStore(deps.database);
  deps.deliveries.beginAttempt(record.id);
  try {
    const parts = splitMarkdown(message);
    for (const [index, text] of parts.entries()) {
      const part = store.record({ chatId, taskId, part: index, text });
      if (part.status !== "pending") continue;
      store.beginAttempt(part.id);
      const sent = await api.sendMessage(chatId, text);
      store.markSent(part.id, sent.message_id);
    }
    deps.deliveries.markSent(record.id);
    return `sent to ${target}`;
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    deps.deliveries.markAttemptFailed(record.id, cause);
    return `delivery to ${target} failed: ${cause}`;
  }
}
