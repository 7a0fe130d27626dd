import { rankCandidates } from "../search/rank.js";
import type { Memory } from "./types.js";

/**
 * Final order of retrieved memories: the retrieval engine's documented ranking (relevance
 * dominates; importance, confirmations and recency are bounded boosts; lower tiers rank lower) with
 * MMR removing near-duplicates. Recency counts from the last use or confirmation, else creation.
 * With `limit`, the first `limit` of that same order (MMR stops picking there).
 */
export function rankRecalled<T extends { memory: Memory; relevance: number }>(
  candidates: readonly T[],
  now: Date,
  limit?: number,
): T[] {
  const ranked = rankCandidates(
    candidates.map((entry, index) => {
      const reference = [entry.memory.lastUsedAt, entry.memory.lastConfirmedAt]
        .filter((value): value is string => value !== null)
        .map((value) => Date.parse(value));
      const createdAt = Date.parse(entry.memory.createdAt);
      return {
        key: index,
        relevance: entry.relevance,
        text: entry.memory.text,
        features: {
          importance: entry.memory.importance,
          confirmations: entry.memory.confirmations,
          lastUsedOrConfirmedAt: new Date(reference.length > 0 ? Math.max(...reference) : createdAt),
          createdAt: new Date(createdAt),
          tier: entry.memory.tier,
        },
      };
    }),
    limit === undefined ? { now } : { now, limit },
  );
  return ranked.flatMap((item) => {
    const entry = candidates[item.key];
    return entry ? [entry] : [];
  });
}
