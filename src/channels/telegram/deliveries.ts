import { createHash } from "node:crypto";
import { z } from "zod";
import { type Clock, systemClock } from "../../agent/clock.js";
import type { SqliteDatabase } from "../../storage/database.js";

export type DeliveryStatus = "pending" | "sent" | "failed";

export interface DeliveryRecord {
  id: number;
  chatId: number;
  taskId: string;
  part: number;
  textHash: string;
  text: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  messageId: number | null;
}

const row = z.object({
  id: z.number().int(),
  chat_id: z.number().int(),
  task_id: z.string(),
  part: z.number().int(),
  text_hash: z.string(),
  text: z.string(),
  status: z.enum(["pending", "sent", "failed"]),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  message_id: z.number().int().nullable(),
});

export function hashText(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Outgoing final messages. A record is written before the send and marked after it, so a crash in
 * between leaves a pending record that the next start delivers, and a replayed task-end with the
 * same text finds its record already sent and sends nothing.
 */
export class DeliveryStore {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Returns the existing record when this exact part was recorded before (same chat, task, text). */
  record(entry: {
    chatId: number;
    taskId: string;
    part: number;
    text: string;
    messageId?: number | null;
  }): DeliveryRecord {
    const now = this.clock.now().toISOString();
    const textHash = hashText(entry.text);
    this.database
      .prepare(
        `INSERT INTO telegram_deliveries (chat_id, task_id, part, text_hash, text, status, attempts, message_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)
         ON CONFLICT(chat_id, task_id, part, text_hash) DO NOTHING`,
      )
      .run(entry.chatId, entry.taskId, entry.part, textHash, entry.text, entry.messageId ?? null, now, now);
    const found = this.database
      .prepare(
        "SELECT * FROM telegram_deliveries WHERE chat_id = ? AND task_id = ? AND part = ? AND text_hash = ?",
      )
      .get(entry.chatId, entry.taskId, entry.part, textHash);
    return toRecord(row.parse(found));
  }

  /**
   * The per-part claim: counts the attempt only when the record is still pending with the attempts
   * the caller read. Two senders that read the same record (the bot's retry and a replayed task-end,
   * or the start's pending pass in another process) cannot both send it: one of them gets false.
   */
  claim(id: number, attemptsRead: number): boolean {
    return (
      this.database
        .prepare(
          "UPDATE telegram_deliveries SET attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'pending' AND attempts = ?",
        )
        .run(this.clock.now().toISOString(), id, attemptsRead).changes > 0
    );
  }

  get(id: number): DeliveryRecord | null {
    const found: unknown = this.database.prepare("SELECT * FROM telegram_deliveries WHERE id = ?").get(id);
    return found === undefined ? null : toRecord(row.parse(found));
  }

  /** Counted before the send: a crash mid-send still shows the attempt. */
  beginAttempt(id: number): void {
    this.database
      .prepare("UPDATE telegram_deliveries SET attempts = attempts + 1, updated_at = ? WHERE id = ?")
      .run(this.clock.now().toISOString(), id);
  }

  markSent(id: number, messageId: number): void {
    this.database
      .prepare(
        "UPDATE telegram_deliveries SET status = 'sent', message_id = ?, last_error = NULL, updated_at = ? WHERE id = ?",
      )
      .run(messageId, this.clock.now().toISOString(), id);
  }

  markFailed(id: number, error: string, final: boolean): void {
    this.database
      .prepare("UPDATE telegram_deliveries SET status = ?, last_error = ?, updated_at = ? WHERE id = ?")
      .run(final ? "failed" : "pending", error, this.clock.now().toISOString(), id);
  }

  pending(): DeliveryRecord[] {
    return this.database
      .prepare("SELECT * FROM telegram_deliveries WHERE status = 'pending' ORDER BY id")
      .all()
      .map((found) => toRecord(row.parse(found)));
  }

  all(): DeliveryRecord[] {
    return this.database
      .prepare("SELECT * FROM telegram_deliveries ORDER BY id")
      .all()
      .map((found) => toRecord(row.parse(found)));
  }
}

function toRecord(parsed: z.infer<typeof row>): DeliveryRecord {
  return {
    id: parsed.id,
    chatId: parsed.chat_id,
    taskId: parsed.task_id,
    part: parsed.part,
    textHash: parsed.text_hash,
    text: parsed.text,
    status: parsed.status,
    attempts: parsed.attempts,
    lastError: parsed.last_error,
    messageId: parsed.message_id,
  };
}
