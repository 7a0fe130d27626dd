import { describe, expect, it } from "vitest";
import { RESCORE_FACTOR, rescoreCandidates } from "../../../src/memory/search/vectors.js";

describe("binary scan candidates", () => {
  it("rescores RESCORE_FACTOR x the pool up to 100,000 documents, then grows with the square root of the store", () => {
    expect(rescoreCandidates(100, 10)).toBe(100 * RESCORE_FACTOR);
    expect(rescoreCandidates(100, 100_000)).toBe(100 * RESCORE_FACTOR);
    expect(rescoreCandidates(100, 400_000)).toBe(2 * 100 * RESCORE_FACTOR);
    expect(rescoreCandidates(100, 1_000_000)).toBe(Math.ceil(100 * RESCORE_FACTOR * Math.sqrt(10)));
    expect(rescoreCandidates(10, 1_000_000)).toBeLessThan(rescoreCandidates(100, 1_000_000));
  });
});
