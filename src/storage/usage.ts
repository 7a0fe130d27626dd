import type { AttemptUsage } from "../model/types.js";
import type { SqliteDatabase } from "./database.js";
import { RowReader } from "./row-shape.js";

export interface UsageSummaryRow {
  day: string;
  provider: string;
  sessionId: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  attempts: number;
  failedAttempts: number;
}

export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Every provider attempt, successful or failed, so budgets count what was really spent. */
export class UsageStore {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly now: () => Date = () => new Date(),
  ) {}

  record(attempts: AttemptUsage[], sessionId: string | null, taskId: string | null): void {
    const at = this.now();
    const insert = this.database.prepare(
      `INSERT INTO usage_records (day, session_id, task_id, provider, model, input_tokens, output_tokens, cost_usd, succeeded, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.database.transaction(() => {
      for (const attempt of attempts) {
        insert.run(
          dayOf(at),
          sessionId,
          taskId,
          attempt.provider,
          attempt.model,
          attempt.inputTokens,
          attempt.outputTokens,
          attempt.costUsd,
          attempt.succeeded ? 1 : 0,
          at.toISOString(),
        );
      }
    })();
  }

  today(): { tokens: number; costUsd: number } {
    // Checked by hand (row-shape.ts): the memory commands ask this before every judge call and must
    // not load zod for it.
    const row = new RowReader(
      "usage_records totals",
      this.database
        .prepare(
          "SELECT SUM(input_tokens + output_tokens) AS tokens, SUM(cost_usd) AS cost FROM usage_records WHERE day = ?",
        )
        .get(dayOf(this.now())),
    );
    return { tokens: row.numberOrNull("tokens") ?? 0, costUsd: row.numberOrNull("cost") ?? 0 };
  }

  summary(days: number): UsageSummaryRow[] {
    const since = dayOf(new Date(this.now().getTime() - (days - 1) * 86_400_000));
    const rows = this.database
      .prepare(
        `SELECT day, provider, session_id AS sessionId, SUM(input_tokens) AS inputTokens, SUM(output_tokens) AS outputTokens,
                SUM(cost_usd) AS costUsd, COUNT(*) AS attempts, SUM(1 - succeeded) AS failedAttempts
         FROM usage_records WHERE day >= ? GROUP BY day, provider, session_id ORDER BY day, provider, session_id`,
      )
      .all(since);
    return rows.map((row) => {
      const r = new RowReader("usage_records summary", row);
      return {
        day: r.text("day"),
        provider: r.text("provider"),
        sessionId: r.textOrNull("sessionId"),
        inputTokens: r.number("inputTokens"),
        outputTokens: r.number("outputTokens"),
        costUsd: r.number("costUsd"),
        attempts: r.number("attempts"),
        failedAttempts: r.number("failedAttempts"),
      };
    });
  }
}
