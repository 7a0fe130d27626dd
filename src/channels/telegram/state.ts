import { z } from "zod";
import type { SqliteDatabase } from "../../storage/database.js";

const taskRow = z.object({ chat_id: z.number().int(), user_key: z.string() });
const valueRow = z.object({ value: z.string() });

/** Small persistent facts of the channel: task → chat routing and the update offset. */
export class TelegramState {
  constructor(private readonly database: SqliteDatabase) {}

  bindTask(taskId: string, chatId: number, userKey: string, now: string): void {
    this.database
      .prepare(
        "INSERT INTO telegram_tasks (task_id, chat_id, user_key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT(task_id) DO NOTHING",
      )
      .run(taskId, chatId, userKey, now);
  }

  taskChat(taskId: string): { chatId: number; userKey: string } | null {
    const row = this.database
      .prepare("SELECT chat_id, user_key FROM telegram_tasks WHERE task_id = ?")
      .get(taskId);
    if (row === undefined) return null;
    const parsed = taskRow.parse(row);
    return { chatId: parsed.chat_id, userKey: parsed.user_key };
  }

  loadOffset(): number {
    const row = this.database.prepare("SELECT value FROM telegram_state WHERE key = 'update_offset'").get();
    if (row === undefined) return 0;
    const offset = Number(valueRow.parse(row).value);
    if (!Number.isSafeInteger(offset))
      throw new Error(`telegram_state.update_offset is not an integer: ${offset}`);
    return offset;
  }

  saveOffset(offset: number): void {
    this.database
      .prepare(
        "INSERT INTO telegram_state (key, value) VALUES ('update_offset', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      )
      .run(String(offset));
  }
}
