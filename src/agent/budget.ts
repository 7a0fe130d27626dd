export interface BudgetLimits {
  dailyTokens: number | null;
  dailyUsd: number | null;
}

export type BudgetCheck = { ok: true } | { ok: false; message: string };

/**
 * Checked before every step. Because the check runs between steps, a task can overshoot the cap by
 * at most the one step that crossed it.
 */
export function checkBudget(limits: BudgetLimits, today: { tokens: number; costUsd: number }): BudgetCheck {
  if (limits.dailyTokens !== null && today.tokens >= limits.dailyTokens) {
    return {
      ok: false,
      message: `daily token budget reached (${today.tokens.toLocaleString("en-US")} of ${limits.dailyTokens.toLocaleString("en-US")} tokens today). It resets at midnight UTC; raise budget.dailyTokens in config.yaml to continue now.`,
    };
  }
  if (limits.dailyUsd !== null && today.costUsd >= limits.dailyUsd) {
    return {
      ok: false,
      message: `daily spending cap reached ($${today.costUsd.toFixed(4)} of $${limits.dailyUsd.toFixed(2)} today). It resets at midnight UTC; raise budget.dailyUsd in config.yaml to continue now.`,
    };
  }
  return { ok: true };
}
