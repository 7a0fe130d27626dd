import { z } from "zod";
import type { BudgetCheck } from "../agent/budget.js";
import type { SqliteDatabase } from "../storage/database.js";
import { dayOf } from "../storage/usage.js";
import type { JobBudget } from "./jobs.js";

/**
 * Task ids carry their lineage: a scheduled run's task is `<jobId>:run-<run>:<attempt>`, a child
 * agent's `<parentTaskId>/child-<n>`. Usage of a job, a run or a parent (children included) is the
 * sum over every task id that starts with its prefix — failed provider attempts included.
 */
export function runTaskPrefix(jobId: string, runId: string): string {
  return `${jobId}:run-${runId.slice(0, 8)}:`;
}

const totals = z.object({
  input: z.number().nullable(),
  output: z.number().nullable(),
  cost: z.number().nullable(),
  succeeded: z.number().nullable(),
});

export interface UsageSum {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Provider attempts that returned an answer: zero means the task never reached a model. */
  succeededAttempts: number;
}

export function usageWithPrefix(database: SqliteDatabase, prefix: string, day?: string): UsageSum {
  const row = totals.parse(
    database
      .prepare(
        `SELECT SUM(input_tokens) AS input, SUM(output_tokens) AS output, SUM(cost_usd) AS cost, SUM(succeeded) AS succeeded
         FROM usage_records WHERE substr(task_id, 1, ?) = ?${day ? " AND day = ?" : ""}`,
      )
      .get(...(day ? [prefix.length, prefix, day] : [prefix.length, prefix])),
  );
  return {
    inputTokens: row.input ?? 0,
    outputTokens: row.output ?? 0,
    costUsd: row.cost ?? 0,
    succeededAttempts: row.succeeded ?? 0,
  };
}

export const jobBudgetPrefix = "scheduled job budget";

/** The per-run and per-day limits of a job, checked before every step like the daily cap. */
export function jobBudgetCheck(
  database: SqliteDatabase,
  now: () => Date,
  jobId: string,
  runId: string,
  budget: JobBudget,
): () => BudgetCheck {
  return () => {
    const run = usageWithPrefix(database, runTaskPrefix(jobId, runId));
    const runTokens = run.inputTokens + run.outputTokens;
    if (budget.runTokens !== null && runTokens >= budget.runTokens)
      return {
        ok: false,
        message: `${jobPrefixMessage(jobId)}: this run used ${runTokens} of its ${budget.runTokens} tokens; the job is paused — raise --run-tokens or \`mercury schedule resume ${jobId}\``,
      };
    if (budget.runUsd !== null && run.costUsd >= budget.runUsd)
      return {
        ok: false,
        message: `${jobPrefixMessage(jobId)}: this run spent $${run.costUsd.toFixed(4)} of its $${budget.runUsd}; the job is paused — \`mercury schedule resume ${jobId}\` to continue`,
      };
    const day = usageWithPrefix(database, `${jobId}:`, dayOf(now()));
    const dayTokens = day.inputTokens + day.outputTokens;
    if (budget.dayTokens !== null && dayTokens >= budget.dayTokens)
      return {
        ok: false,
        message: `${jobPrefixMessage(jobId)}: ${dayTokens} of its ${budget.dayTokens} tokens for today (UTC) are used; the job is paused — \`mercury schedule resume ${jobId}\` tomorrow or raise --day-tokens`,
      };
    if (budget.dayUsd !== null && day.costUsd >= budget.dayUsd)
      return {
        ok: false,
        message: `${jobPrefixMessage(jobId)}: $${day.costUsd.toFixed(4)} of its $${budget.dayUsd} for today (UTC) is spent; the job is paused — \`mercury schedule resume ${jobId}\` to continue`,
      };
    return { ok: true };
  };
}

function jobPrefixMessage(jobId: string): string {
  return `${jobBudgetPrefix} of ${jobId} reached`;
}

/** What the permission engine refused during these tasks (children included), for the report. */
export function refusalsWithPrefix(database: SqliteDatabase, prefix: string): string[] {
  return z
    .array(z.object({ summary: z.string(), reason: z.string() }))
    .parse(
      database
        .prepare(
          "SELECT summary, reason FROM permission_audit WHERE substr(task_id, 1, ?) = ? AND outcome = 'refused' ORDER BY id",
        )
        .all(prefix.length, prefix),
    )
    .map((row) => `${row.summary} — ${row.reason}`);
}
