import { z } from "zod";
import type { SqliteDatabase } from "../storage/database.js";
import { type Clock, systemClock } from "./clock.js";

export type TaskDeliveryStatus = "pending" | "sent" | "failed";

export interface TaskDelivery {
  id: number;
  taskId: string;
  target: string;
  status: TaskDeliveryStatus;
  attempts: number;
  lastError: string | null;
  deliveredAt: string | null;
}

const row = z.object({
  id: z.number().int(),
  task_id: z.string(),
  target: z.string(),
  status: z.enum(["pending", "sent", "failed"]),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  delivered_at: z.string().nullable(),
});

function toDelivery(value: unknown): TaskDelivery {
  const parsed = row.parse(value);
  return {
    id: parsed.id,
    taskId: parsed.task_id,
    target: parsed.target,
    status: parsed.status,
    attempts: parsed.attempts,
    lastError: parsed.last_error,
    deliveredAt: parsed.delivered_at,
  };
}

/** After this many failed sends a delivery is marked failed and shown in status instead of retried. */
export const maxDeliveryAttempts = 5;

/**
 * Delivery records of final answers, one per task and target. Recorded before the send and marked
 * after it: a crash in between leaves 'pending' (sent at the next chance), a replay of an answer
 * already marked 'sent' finds it and sends nothing.
 */
export class DeliveryLedger {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Idempotent: returns the existing record for this task and target. */
  record(taskId: string, target: string): TaskDelivery {
    const now = this.clock.now().toISOString();
    this.database
      .prepare(
        `INSERT INTO task_deliveries (task_id, target, status, attempts, created_at, updated_at)
         VALUES (?, ?, 'pending', 0, ?, ?) ON CONFLICT(task_id, target) DO NOTHING`,
      )
      .run(taskId, target, now, now);
    return toDelivery(
      this.database
        .prepare("SELECT * FROM task_deliveries WHERE task_id = ? AND target = ?")
        .get(taskId, target),
    );
  }

  get(taskId: string, target: string): TaskDelivery | null {
    const found: unknown = this.database
      .prepare("SELECT * FROM task_deliveries WHERE task_id = ? AND target = ?")
      .get(taskId, target);
    return found === undefined ? null : toDelivery(found);
  }

  /** Counted before the send, so a crash mid-send still shows the attempt. */
  beginAttempt(id: number): void {
    this.database
      .prepare("UPDATE task_deliveries SET attempts = attempts + 1, updated_at = ? WHERE id = ?")
      .run(this.clock.now().toISOString(), id);
  }

  /** Only a pending record becomes sent: two racing senders cannot both claim it. */
  markSent(id: number): boolean {
    const now = this.clock.now().toISOString();
    return (
      this.database
        .prepare(
          "UPDATE task_deliveries SET status = 'sent', delivered_at = ?, updated_at = ?, last_error = NULL WHERE id = ? AND status = 'pending'",
        )
        .run(now, now, id).changes > 0
    );
  }

  markAttemptFailed(id: number, error: string): TaskDelivery {
    const now = this.clock.now().toISOString();
    this.database
      .prepare(
        `UPDATE task_deliveries SET last_error = ?, updated_at = ?,
           status = CASE WHEN attempts >= ? THEN 'failed' ELSE status END
         WHERE id = ? AND status = 'pending'`,
      )
      .run(error, now, maxDeliveryAttempts, id);
    return toDelivery(this.database.prepare("SELECT * FROM task_deliveries WHERE id = ?").get(id));
  }

  pending(target?: string): TaskDelivery[] {
    const rows: unknown[] =
      target === undefined
        ? this.database.prepare("SELECT * FROM task_deliveries WHERE status = 'pending' ORDER BY id").all()
        : this.database
            .prepare("SELECT * FROM task_deliveries WHERE status = 'pending' AND target = ? ORDER BY id")
            .all(target);
    return rows.map(toDelivery);
  }

  forTask(taskId: string): TaskDelivery[] {
    const rows: unknown[] = this.database
      .prepare("SELECT * FROM task_deliveries WHERE task_id = ? ORDER BY id")
      .all(taskId);
    return rows.map(toDelivery);
  }
}
