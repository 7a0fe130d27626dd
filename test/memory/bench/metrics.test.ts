import { describe, expect, it } from "vitest";
import { ndcgAt, percentile, recallAt } from "../../../src/memory/bench/metrics.js";

describe("metrics", () => {
  it("computes recall@k on a known ranking", () => {
    const ranking = ["a", "x", "b", "y", "z", "c"];
    const relevant = new Set(["a", "b", "c", "d"]);
    expect(recallAt(ranking, relevant, 1)).toBe(0.25);
    expect(recallAt(ranking, relevant, 3)).toBe(0.5);
    expect(recallAt(ranking, relevant, 6)).toBe(0.75);
    expect(recallAt(ranking, relevant, 50)).toBe(0.75);
  });

  it("computes binary nDCG@10 on known rankings", () => {
    expect(ndcgAt(["a", "b"], new Set(["a"]), 10)).toBe(1);
    expect(ndcgAt(["x", "a"], new Set(["a"]), 10)).toBeCloseTo(1 / Math.log2(3));
    // Two relevant, found at ranks 1 and 3: (1 + 1/2) / (1 + 1/log2(3)).
    expect(ndcgAt(["a", "x", "b"], new Set(["a", "b"]), 10)).toBeCloseTo(1.5 / (1 + 1 / Math.log2(3)));
    expect(ndcgAt(Array.from({ length: 10 }, (_, i) => `x${i}`).concat("a"), new Set(["a"]), 10)).toBe(0);
  });

  it("refuses an empty relevant set instead of inventing a score", () => {
    expect(() => recallAt(["a"], new Set(), 10)).toThrow(/relevant/);
    expect(() => ndcgAt(["a"], new Set(), 10)).toThrow(/relevant/);
  });

  it("computes nearest-rank percentiles", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile([7], 95)).toBe(7);
    expect(() => percentile([], 50)).toThrow();
  });
});
