import { describe, expect, it } from "vitest";
import {
  boostOf,
  MAX_BOOST,
  type RankCandidate,
  type RankFeatures,
  rankCandidates,
  scoreOf,
} from "../../../src/memory/search/rank.js";

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
