import type { SqliteDatabase } from "../storage/database.js";
import type { Importance, Tier } from "./store/types.js";

/**
 * Forgetting is tiering, never deletion. A memory's tier is a pure function of the time since it
 * was last used (injected into a prompt or returned by a search) or confirmed — counted from its
 * creation when it was never used, so junk nobody needs ages out instead of living forever:
 *
 *   age < 30 days · f            -> active
 *   age < 180 days · f           -> dormant
 *   otherwise                    -> archived
 *
 *   f by importance: low 0.5, normal 1, high 2, critical 4 (important things fade slower)
 *
 * Because the tier only depends on stored timestamps and `now`, running decay twice at the same
 * time equals running it once. Lower tiers rank lower in retrieval but stay searchable.
 */
export const TIER_DAYS = { dormantAfter: 30, archivedAfter: 180 } as const;

export const IMPORTANCE_SLOWDOWN: Readonly<Record<Importance, number>> = {
  low: 0.5,
  normal: 1,
  high: 2,
  critical: 4,
};

const DAY_MS = 86_400_000;

export interface TierInput {
  importance: Importance;
  createdAt: string;
  lastUsedAt: string | null;
  lastConfirmedAt: string | null;
}

/** The time decay counts from: the latest of last use and last confirmation, else creation. */
export function referenceTime(input: TierInput): number {
  const times = [input.lastUsedAt, input.lastConfirmedAt]
    .filter((value): value is string => value !== null)
    .map((value) => Date.parse(value));
  const created = Date.parse(input.createdAt);
  if (Number.isNaN(created)) throw new RangeError(`createdAt is not a date: ${input.createdAt}`);
  return times.length === 0 ? created : Math.max(...times);
}

export function tierFor(input: TierInput, now: Date): Tier {
  const days = (now.getTime() - referenceTime(input)) / DAY_MS;
  const factor = IMPORTANCE_SLOWDOWN[input.importance];
  if (days < TIER_DAYS.dormantAfter * factor) return "active";
  if (days < TIER_DAYS.archivedAfter * factor) return "dormant";
  return "archived";
}

export interface DecayResult {
  examined: number;
  moved: { id: number; from: Tier; to: Tier }[];
}

interface TierRow {
  id: number;
  tier: Tier;
  importance: Importance;
  created_at: string;
  last_used_at: string | null;
  last_confirmed_at: string | null;
}

/** Recomputes every memory's tier at `now`. Idempotent; never deletes a row. */
export function runDecay(database: SqliteDatabase, now: Date): DecayResult {
  const rows = database
    .prepare("SELECT id, tier, importance, created_at, last_used_at, last_confirmed_at FROM memories")
    .all() as TierRow[];
  const update = database.prepare("UPDATE memories SET tier = ? WHERE id = ?");
  const moved: DecayResult["moved"] = [];
  database.transaction(() => {
    for (const row of rows) {
      const to = tierFor(
        {
          importance: row.importance,
          createdAt: row.created_at,
          lastUsedAt: row.last_used_at,
          lastConfirmedAt: row.last_confirmed_at,
        },
        now,
      );
      if (to !== row.tier) {
        update.run(to, row.id);
        moved.push({ id: row.id, from: row.tier, to });
      }
    }
  })();
  return { examined: rows.length, moved };
}
