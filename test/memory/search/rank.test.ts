import { describe, expect, it } from "vitest";
import {
  boostOf,
  MAX_BOOST,
  type RankCandidate,
  type RankFeatures,
  rankCandidates,
  scoreOf,
} from "../../../src/memory/search/rank.js";
import { hasNegation, lexicalSimilarity, tokenize } from "../../../src/memory/text/analyze.js";

const NOW = new Date("2026-06-01T00:00:00Z");
const DAY = 86_400_000;

function features(overrides: Partial<RankFeatures> = {}): RankFeatures {
  return {
    importance: "normal",
    confirmations: 0,
    lastUsedOrConfirmedAt: new Date(NOW.getTime() - 365 * DAY),
    createdAt: new Date(NOW.getTime() - 365 * DAY),
    tier: "active",
    ...overrides,
  };
}

const maxed = features({ importance: "critical", confirmations: 1000, lastUsedOrConfirmedAt: NOW });

function candidate(
  key: string,
  relevance: number,
  text: string,
  f: RankFeatures = features(),
): RankCandidate<string> {
  return { key, relevance, text, features: f };
}

describe("rank formula", () => {
  it("bounds the boosts: never more than MAX_BOOST, never negative", () => {
    expect(boostOf(maxed, NOW)).toBeCloseTo(MAX_BOOST);
    expect(MAX_BOOST).toBeLessThanOrEqual(0.25);
    expect(
      boostOf(features({ importance: "low", lastUsedOrConfirmedAt: new Date(0) }), NOW),
    ).toBeGreaterThanOrEqual(0);
    // A future timestamp (clock skew) does not raise the boost above the bound.
    expect(
      boostOf(
        features({
          importance: "critical",
          confirmations: 1e9,
          lastUsedOrConfirmedAt: new Date(NOW.getTime() + 1e12),
        }),
        NOW,
      ),
    ).toBeLessThanOrEqual(MAX_BOOST + 1e-12);
  });

  it("lets relevance dominate: a much more relevant memory beats a fully boosted one", () => {
    const ranked = rankCandidates(
      [
        candidate("boosted", 0.5, "user owns a red bicycle", maxed),
        candidate("relevant", 0.8, "user allergic to peanuts", features({ importance: "low" })),
      ],
      { now: NOW },
    );
    expect(ranked.map((r) => r.key)).toEqual(["relevant", "boosted"]);
  });

  it("lets the boosts decide between nearly equally relevant memories", () => {
    const ranked = rankCandidates(
      [
        candidate("plain", 0.8, "user likes jazz"),
        candidate("confirmed", 0.78, "user plays the trumpet", maxed),
      ],
      { now: NOW },
    );
    expect(ranked[0]?.key).toBe("confirmed");
  });

  it("is monotonic in each boost", () => {
    const base = scoreOf(0.5, features(), NOW);
    expect(scoreOf(0.5, features({ importance: "high" }), NOW)).toBeGreaterThan(base);
    expect(scoreOf(0.5, features({ confirmations: 3 }), NOW)).toBeGreaterThan(base);
    expect(
      scoreOf(0.5, features({ lastUsedOrConfirmedAt: new Date(NOW.getTime() - DAY) }), NOW),
    ).toBeGreaterThan(base);
    expect(scoreOf(0.6, features(), NOW)).toBeGreaterThan(base);
  });

  it("ranks lower tiers lower without hiding them", () => {
    const ranked = rankCandidates(
      [
        candidate("archived", 0.9, "user lived in Oslo", features({ tier: "archived" })),
        candidate("dormant", 0.9, "user studied in Porto", features({ tier: "dormant" })),
        candidate("active", 0.9, "user works in Lima", features()),
      ],
      { now: NOW },
    );
    expect(ranked.map((r) => r.key)).toEqual(["active", "dormant", "archived"]);
  });

  it("ages a never-used memory from its creation date (passed as lastUsedOrConfirmedAt)", () => {
    const fresh = scoreOf(0.5, features({ lastUsedOrConfirmedAt: NOW, createdAt: NOW }), NOW);
    const old = scoreOf(0.5, features({ lastUsedOrConfirmedAt: new Date(NOW.getTime() - 90 * DAY) }), NOW);
    expect(old).toBeLessThan(fresh);
  });
});

describe("MMR", () => {
  it("drops near-duplicates and keeps distinct memories", () => {
    const ranked = rankCandidates(
      [
        candidate("a", 0.9, "The user's sister Maria lives in Lisbon."),
        candidate("a-dup", 0.89, "the user's sister, Maria, lives in Lisbon!"),
        candidate("b", 0.7, "The user prefers tea over coffee."),
      ],
      { now: NOW },
    );
    expect(ranked.map((r) => r.key)).toEqual(["a", "b"]);
  });

  it("pushes a partial repeat below a novel memory of similar score", () => {
    const ranked = rankCandidates(
      [
        candidate("a", 0.9, "user sister Maria lives Lisbon works nurse"),
        candidate("similar", 0.85, "user sister Maria lives Lisbon loves dogs"),
        candidate("novel", 0.84, "user prefers tea over coffee"),
      ],
      { now: NOW },
    );
    expect(ranked.map((r) => r.key)).toEqual(["a", "novel", "similar"]);
  });

  it("is deterministic and respects limit", () => {
    const input = Array.from({ length: 30 }, (_, i) =>
      candidate(`k${i}`, 0.5, `fact number ${i} about topic ${i % 7}`),
    );
    const first = rankCandidates(input, { now: NOW, limit: 10 });
    const second = rankCandidates([...input], { now: NOW, limit: 10 });
    expect(first).toEqual(second);
    expect(first.length).toBe(10);
  });

  it("returns nothing for no candidates", () => {
    expect(rankCandidates([], { now: NOW })).toEqual([]);
  });
});

describe("MMR evaluated lazily", () => {
  /** The documented greedy MMR, computed the plain way: every remaining candidate against every pick. */
  function reference(candidates: RankCandidate<string>[], limit: number): string[] {
    const scored = candidates
      .map((entry, order) => ({ entry, order, score: scoreOf(entry.relevance, entry.features, NOW) }))
      .sort((a, b) => b.score - a.score || a.order - b.order);
    const maxScore = scored[0]?.score ?? 0;
    const picked: typeof scored = [];
    const remaining = [...scored];
    while (picked.length < limit && remaining.length > 0) {
      let best = -1;
      let bestValue = Number.NEGATIVE_INFINITY;
      remaining.forEach((item, index) => {
        let similarity = 0;
        for (const pick of picked) {
          if (hasNegation(tokenize(pick.entry.text)) !== hasNegation(tokenize(item.entry.text))) continue;
          similarity = Math.max(similarity, lexicalSimilarity(pick.entry.text, item.entry.text));
        }
        if (similarity >= 0.9) return;
        const value = 0.75 * (maxScore > 0 ? item.score / maxScore : 0) - 0.25 * similarity;
        if (value > bestValue) {
          bestValue = value;
          best = index;
        }
      });
      if (best < 0) break;
      picked.push(...remaining.splice(best, 1));
    }
    return picked.map((item) => item.entry.key);
  }

  it("picks what comparing every candidate with every pick picks, for any limit", () => {
    const subjects = ["coffee", "tea", "hiking", "chess", "jazz", "sushi", "paris", "python"];
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let trial = 0; trial < 30; trial++) {
      const candidates = Array.from({ length: 40 }, (_, index) => {
        const a = subjects[Math.floor(next() * subjects.length)];
        const b = subjects[Math.floor(next() * subjects.length)];
        // Many near-duplicates and negations, so the similarity terms decide picks.
        const text = next() < 0.2 ? `The user does not like ${a} or ${b}.` : `The user likes ${a} and ${b}.`;
        return candidate(
          `m${index}`,
          Math.round(next() * 20) / 20,
          text,
          features({ confirmations: index % 3 }),
        );
      });
      for (const limit of [1, 5, 10, 40]) {
        expect(rankCandidates(candidates, { now: NOW, limit }).map((item) => item.key)).toEqual(
          reference(candidates, limit),
        );
      }
    }
  });
});
