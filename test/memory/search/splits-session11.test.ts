import { describe, expect, it } from "vitest";
import { compareSplits, type QuestionScore } from "../../../src/memory/bench/splits.js";

function score(conversation: string, category: number, recallAt10: number, ndcgAt10: number, type?: string) {
  const result: QuestionScore = { conversation, category, recallAt10, ndcgAt10 };
  if (type !== undefined) result.type = type;
  return result;
}

describe("per-split comparison against the plain-BM25 baseline", () => {
  it("reports every category, type and conversation with the ratio, and marks the splits below", () => {
    // Two conversations of five questions each: conversation splits are reported.
    const ours = [
      ...Array.from({ length: 5 }, () => score("a", 1, 1, 1, "multi")),
      ...Array.from({ length: 5 }, () => score("b", 2, 0, 0.25)),
    ];
    const theirs = [
      ...Array.from({ length: 5 }, () => score("a", 1, 0.5, 0.5, "multi")),
      ...Array.from({ length: 5 }, () => score("b", 2, 0.5, 0.5)),
    ];
    const splits = new Map(compareSplits(ours, theirs).map((split) => [split.split, split]));
    expect([...splits.keys()].sort()).toEqual([
      "all",
      "category 1",
      "category 2",
      "conversation a",
      "conversation b",
      "type multi",
    ]);
    expect(splits.get("all")).toMatchObject({
      questions: 10,
      mercury: { recallAt10: 0.5, ndcgAt10: 0.625 },
      baseline: { recallAt10: 0.5, ndcgAt10: 0.5 },
      ratio: { recallAt10: 1, ndcgAt10: 1.25 },
      below: false,
    });
    expect(splits.get("conversation a")?.below).toBe(false);
    expect(splits.get("conversation b")).toMatchObject({
      ratio: { recallAt10: 0, ndcgAt10: 0.5 },
      below: true,
    });
    expect(splits.get("category 2")?.below).toBe(true);
  });

  it("leaves conversations out when each holds one question, and refuses runs that do not match", () => {
    const ours = [score("q1", 3, 1, 1), score("q2", 3, 0, 0)];
    const theirs = [score("q1", 3, 1, 1), score("q2", 3, 0, 0)];
    expect(compareSplits(ours, theirs).map((split) => split.split)).toEqual(["all", "category 3"]);
    expect(compareSplits([score("q", 1, 0, 0)], [score("q", 1, 0, 0)])[0]?.ratio).toEqual({
      recallAt10: null,
      ndcgAt10: null,
    });
    expect(() => compareSplits(ours, theirs.slice(1))).toThrow(RangeError);
    expect(() => compareSplits(ours, [theirs[1] as QuestionScore, theirs[0] as QuestionScore])).toThrow(
      /differs/,
    );
  });
});
