import { hasNegation, termCounts, termsOfTokens, tokenize } from "../text/analyze.js";

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
  const scored: Scored<K>[] = candidates.map((candidate, order) => ({
    order,
    text: candidate.text,
    content: undefined,
    maxSimilarity: 0,
    compared: 0,
    ranked: {
      key: candidate.key,
      score: scoreOf(candidate.relevance, candidate.features, options.now),
      relevance: candidate.relevance,
      boost: boostOf(candidate.features, options.now),
      tierFactor: TIER_FACTOR[candidate.features.tier],
    },
  }));
  scored.sort((a, b) => b.ranked.score - a.ranked.score || a.order - b.order);
  const maxScore = scored[0]?.ranked.score ?? 0;
  const selected: Scored<K>[] = [];
  const remaining = [...scored];
  // Greedy MMR, evaluated lazily with the same result as comparing every remaining candidate with
  // each pick: `remaining` is in score order, a candidate's value is at most λ·score/maxScore (minus
  // what similarity is known so far), and a value that cannot beat the best one found is not worth
  // the similarities (nor the text analysis) it would need. Picks depend only on earlier picks, so
  // a caller wanting 10 of 100 stops after 10.
  while (selected.length < limit && remaining.length > 0) {
    let bestIndex = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (let index = 0; index < remaining.length; index++) {
      const item = remaining[index];
      if (!item) continue;
      const normalized = maxScore > 0 ? item.ranked.score / maxScore : 0;
      // Later candidates score no higher and similarity only lowers a value: none can win.
      if (lambda * normalized <= bestValue) break;
      if (item.maxSimilarity >= threshold) continue;
      if (lambda * normalized - (1 - lambda) * item.maxSimilarity <= bestValue) continue;
      compareWithPicks(item, selected);
      if (item.maxSimilarity >= threshold) continue;
      const value = lambda * normalized - (1 - lambda) * item.maxSimilarity;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = index;
      }
    }
    if (bestIndex < 0) break;
    const [chosen] = remaining.splice(bestIndex, 1);
    if (!chosen) break;
    selected.push(chosen);
  }
  return selected.map((item) => item.ranked);
}

interface Content {
  terms: Map<string, number>;
  /** Sum of the squared counts (an exact integer). */
  norm: number;
  negated: boolean;
}

interface Scored<K> {
  order: number;
  text: string;
  /** Analyzed on first comparison. */
  content: Content | undefined;
  /** Highest similarity to the picks compared so far (the first `compared` of them). */
  maxSimilarity: number;
  compared: number;
  ranked: RankedCandidate<K>;
}

function contentOf(item: Scored<unknown>): Content {
  if (item.content === undefined) {
    const tokens = tokenize(item.text);
    const terms = termCounts(termsOfTokens(tokens));
    // A statement and its negation share every content word but are never duplicates.
    item.content = { terms, norm: squaredNorm(terms), negated: hasNegation(tokens) };
  }
  return item.content;
}

/** Brings the candidate's highest similarity up to date with every pick made so far. */
function compareWithPicks(item: Scored<unknown>, picks: readonly Scored<unknown>[]): void {
  for (; item.compared < picks.length; item.compared++) {
    const pick = picks[item.compared];
    if (!pick) continue;
    const own = contentOf(item);
    const other = contentOf(pick);
    if (own.negated !== other.negated) continue;
    const similarity = cosine(own.terms, own.norm, other.terms, other.norm);
    if (similarity > item.maxSimilarity) item.maxSimilarity = similarity;
  }
}

function squaredNorm(counts: ReadonlyMap<string, number>): number {
  let norm = 0;
  for (const count of counts.values()) norm += count * count;
  return norm;
}

/**
 * `cosineOfCounts` (text/analyze.ts) with both squared norms computed once per candidate instead of
 * once per pair: the counts are small integers, so every sum is exact and the value is the same.
 */
function cosine(
  a: ReadonlyMap<string, number>,
  normA: number,
  b: ReadonlyMap<string, number>,
  normB: number,
): number {
  if (normA === 0 || normB === 0) return 0;
  let dot = 0;
  for (const [term, count] of a) {
    const other = b.get(term);
    if (other !== undefined) dot += count * other;
  }
  return dot / Math.sqrt(normA * normB);
}
