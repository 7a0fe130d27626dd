import type { SqliteDatabase } from "../../storage/database.js";

export interface QueuedPair {
  id: number;
  memoryId: number;
  userKey: string;
  neighbourIds: number[];
  attempts: number;
  lastError: string | null;
}

/** Pairs the model judge could not decide (provider down, invalid output after one repair). */
export class JudgeQueue {
  constructor(private readonly database: SqliteDatabase) {}

  enqueue(
    memoryId: number,
    userKey: string,
    neighbourIds: readonly number[],
    error: string,
    at: string,
  ): void {
    this.database
      .prepare(
        `INSERT INTO memory_judge_queue (memory_id, user_key, neighbour_ids, attempts, last_error, created_at)
         VALUES (?, ?, ?, 1, ?, ?)`,
      )
      .run(memoryId, userKey, JSON.stringify(neighbourIds), error, at);
  }

  pending(limit: number): QueuedPair[] {
    const rows = this.database
      .prepare(
        "SELECT id, memory_id, user_key, neighbour_ids, attempts, last_error FROM memory_judge_queue ORDER BY id LIMIT ?",
      )
      .all(limit) as {
      id: number;
      memory_id: number;
      user_key: string;
      neighbour_ids: string;
      attempts: number;
      last_error: string | null;
    }[];
    return rows.map((row) => ({
      id: row.id,
      memoryId: row.memory_id,
      userKey: row.user_key,
      neighbourIds: (JSON.parse(row.neighbour_ids) as unknown[]).filter(
        (value): value is number => typeof value === "number",
      ),
      attempts: row.attempts,
      lastError: row.last_error,
    }));
  }

  count(userKey: string | null): number {
    const row = this.database
      .prepare(`SELECT COUNT(*) AS n FROM memory_judge_queue ${userKey === null ? "" : "WHERE user_key = ?"}`)
      .get(...(userKey === null ? [] : [userKey])) as { n: number };
    return row.n;
  }

  failedAgain(id: number, error: string): void {
    this.database
      .prepare("UPDATE memory_judge_queue SET attempts = attempts + 1, last_error = ? WHERE id = ?")
      .run(error, id);
  }

  done(id: number): void {
    this.database.prepare("DELETE FROM memory_judge_queue WHERE id = ?").run(id);
  }
}
