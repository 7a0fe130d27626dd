import { analyze, cosineOfCounts, termCounts, tokenize } from "../text/analyze.js";
import { hasNegation } from "../text/negation.js";

/**
 * Final ranking of retrieved memories. Pure and deterministic.
 *
 *   score = relevance × tierFactor × (1 + importanceBoost + confirmationBoost + recencyBoost)
 *
 *   importanceBoost   = low 0, normal 0.03, high 0.07, critical 0.10
 *   confirmationBoost = 0.06 × min(1, log2(1 + confirmations) / 4)     (full at 15 confirmations)
 *   recencyBoost      = 0.06 × 0.5 ^ (daysSince(lastUsedOrConfirmedAt) / 30)   (30-day half-life;
 *                       the caller passes createdAt there for a memory never used or confirmed)
 *   tierFactor        = active 1, dormant 0.85, archived 0.7
 *
 * So the boosts together multiply relevance by at most 1.22: a memory less relevant than another by
 * more than a factor 1.22 can never overtake it, whatever its importance, confirmations or age.
 * Lower tiers only lose ground (×0.85, ×0.7) and stay findable.
 *
 * Then maximal marginal relevance, greedily: next = argmax λ·score/maxScore − (1−λ)·maxSim(selected)
 * with λ = 0.75, where sim is the cosine of stemmed content terms; a candidate whose similarity to
 * one already selected is ≥ 0.9 is a near-duplicate and is dropped. Ties break on the caller's order.
 */

export type Importance = "low" | "normal" | "high" | "critical";
export type Tier = "active" | "dormant" | "archived";

export interface RankFeatures {
  importance: Importance;
  confirmations: number;
  lastUsedOrConfirmedAt: Date;
  createdAt: Date;
  tier: Tier;
}

export interface RankCandidate<K> {
  key: K;
  /** From SearchIndex.search, in [0, 1]. */
  relevance: number;
  /** The memory's text, for near-duplicate detection. */
  text: string;
  features: RankFeatures;
}

export interface RankedCandidate<K> {
  key: K;
  score: number;
  relevance: number;
  boost: number;
  tierFactor: number;
}

export interface RankOptions {
  now: Date;
  limit?: number;
  /** Weight of relevance against novelty in MMR (default 0.75). */
  lambda?: number;
  /** Similarity at or above which a candidate is a near-duplicate and dropped (default 0.9). */
  duplicateThreshold?: number;
}

export const IMPORTANCE_BOOST: Readonly<Record<Importance, number>> = {
  low: 0,
  normal: 0.03,
  high: 0.07,
  critical: 0.1,
};
export const CONFIRMATION_BOOST_MAX = 0.06;
export const RECENCY_BOOST_MAX = 0.06;
export const RECENCY_HALF_LIFE_DAYS = 30;
export const TIER_FACTOR: Readonly<Record<Tier, number>> = { active: 1, dormant: 0.85, archived: 0.7 };
export const MAX_BOOST = IMPORTANCE_BOOST.critical + CONFIRMATION_BOOST_MAX + RECENCY_BOOST_MAX;

const DAY_MS = 86_400_000;

export function boostOf(features: RankFeatures, now: Date): number {
  const importance = IMPORTANCE_BOOST[features.importance];
  const confirmations = Math.max(0, features.confirmations);
  const confirmation = CONFIRMATION_BOOST_MAX * Math.min(1, Math.log2(1 + confirmations) / 4);
  const ageDays = Math.max(0, (now.getTime() - features.lastUsedOrConfirmedAt.getTime()) / DAY_MS);
  const recency = RECENCY_BOOST_MAX * 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS);
  return importance + confirmation + recency;
}

export function scoreOf(relevance: number, features: RankFeatures, now: Date): number {
  const clamped = Math.min(1, Math.max(0, relevance));
  return clamped * TIER_FACTOR[features.tier] * (1 + boostOf(features, now));
}

export function rankCandidates<K>(
  candidates: readonly RankCandidate<K>[],
  options: RankOptions,
): RankedCandidate<K>[] {
  const lambda = options.lambda ?? 0.75;
  const threshold = options.duplicateThreshold ?? 0.9;
  const limit = options.limit ?? candidates.length;
  const scored = candidates.map((candidate, order) => {
    const boost = boostOf(candidate.features, options.now);
    return {
      order,
      terms: termCounts(analyze(candidate.text)),
      // A statement and its negation share every content word but are never duplicates.
      negated: hasNegation(tokenize(candidate.text)),
      ranked: {
        key: candidate.key,
        score: scoreOf(candidate.relevance, candidate.features, options.now),
        relevance: candidate.relevance,
        boost,
        tierFactor: TIER_FACTOR[candidate.features.tier],
      },
    };
  });
  scored.sort((a, b) => b.ranked.score - a.ranked.score || a.order - b.order);
  const maxScore = scored[0]?.ranked.score ?? 0;
  const selected: typeof scored = [];
  const remaining = [...scored];
  const maxSimilarity = new Map<number, number>(remaining.map((item) => [item.order, 0]));
  while (selected.length < limit && remaining.length > 0) {
    let bestIndex = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (let index = 0; index < remaining.length; index++) {
      const item = remaining[index];
      if (!item) continue;
      const similarity = maxSimilarity.get(item.order) ?? 0;
      if (similarity >= threshold) continue;
      const normalized = maxScore > 0 ? item.ranked.score / maxScore : 0;
      const value = lambda * normalized - (1 - lambda) * similarity;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = index;
      }
    }
    if (bestIndex < 0) break;
    const [chosen] = remaining.splice(bestIndex, 1);
    if (!chosen) break;
    selected.push(chosen);
    for (const item of remaining) {
      if (item.negated !== chosen.negated) continue;
      const similarity = cosineOfCounts(item.terms, chosen.terms);
      if (similarity > (maxSimilarity.get(item.order) ?? 0)) maxSimilarity.set(item.order, similarity);
    }
  }
  return selected.map((item) => item.ranked);
}
