import { describe, expect, it } from "vitest";
import {
  DEFAULT_PRECISION,
  guardReranking,
  rerankForPrecision,
} from "../../../src/memory/search/precision.js";
import { SearchIndex } from "../../../src/memory/search/search-index.js";
import { openMemoryDatabase } from "../../../src/storage/database.js";

describe("guardReranking", () => {
  // Exact BM25 of the query's own words, and the same pool after the later stages.
  const first = [
    { documentId: 1, score: 10 },
    { documentId: 2, score: 6 },
    { documentId: 3, score: 1 },
  ];
  const reranked = [
    { documentId: 3, score: 12 },
    { documentId: 2, score: 11 },
    { documentId: 1, score: 10 },
  ];

  it("off keeps the reranked order", () => {
    expect(guardReranking(first, reranked, "off")).toEqual(reranked);
  });

  it("cap lets a stage add at most a document's own BM25 score", () => {
    // 3 gains 11 but may keep 1 (score 2); 2 gains 5, within its 6 (score 11); 1 gains nothing.
    expect(guardReranking(first, reranked, "cap")).toEqual([
      { documentId: 2, score: 11 },
      { documentId: 1, score: 10 },
      { documentId: 3, score: 2 },
    ]);
  });

  it("fuse ranks by both orders, so a document either puts first stays near the top", () => {
    // 3 and 1 are each first in one order and last in the other (a tie kept in reranked order);
    // 2, second in both, comes last.
    const order = guardReranking(first, reranked, "fuse").map((result) => result.documentId);
    expect(order).toEqual([3, 1, 2]);
  });
});

describe("capBonus", () => {
  it("bounds the speaker bonus by the document's own score", () => {
    const results = [
      { documentId: 1, score: 3 },
      { documentId: 2, score: 1 },
    ];
    // Document 2 is spoken by Ann, whom the query names; the bonus is the strongest idf, 4.
    const documentOf = (documentId: number) => ({ terms: [], speaker: documentId === 2 ? ["ann"] : [] });
    const idf = () => 4;
    expect(rerankForPrecision(results, ["ann", "quilt"], documentOf, idf)).toEqual([
      { documentId: 2, score: 5 },
      { documentId: 1, score: 3 },
    ]);
    expect(
      rerankForPrecision(results, ["ann", "quilt"], documentOf, idf, {
        ...DEFAULT_PRECISION,
        capBonus: true,
      }),
    ).toEqual([
      { documentId: 1, score: 3 },
      { documentId: 2, score: 2 },
    ]);
  });
});

describe("SearchIndex with the guard", () => {
  it("keeps a strong match of the question's words above a weak one the speaker reordering lifts", async () => {
    const database = openMemoryDatabase();
    try {
      const turn = (id: number, speaker: string, text: string) => ({
        namespace: "episode" as const,
        id,
        scope: "owner",
        speaker,
        text,
      });
      new SearchIndex(database).upsertMany([
        // Bob's turn is the only one about the quilt; Ann says "blue" in passing, as others do.
        turn(1, "Bob", "My sister finished the quilt at last"),
        turn(2, "Ann", "The sky was blue all morning"),
        turn(3, "Bob", "A blue car parked outside today"),
        turn(4, "Bob", "Blue paint dried on the fence"),
        turn(5, "Bob", "Dinner was late again"),
        turn(6, "Bob", "The weather was odd"),
        turn(7, "Bob", "Blue hour at the beach"),
        turn(8, "Bob", "Her blue scarf got lost"),
        turn(7, "Bob", "Blue hour at the beach"),
        turn(8, "Bob", "Her blue scarf got lost"),
      ]);
      const search = async (rerankGuard: "off" | "cap" | "bonus-cap") =>
        (
          await new SearchIndex(database, { rerankGuard }).search("Was Ann's quilt blue?", {
            namespace: "episode",
            scopes: ["owner"],
          })
        ).map((hit) => hit.id);
      // Unguarded, naming Ann lifts her one-word match over the turn that answers.
      expect((await search("off"))[0]).toBe(2);
      expect((await search("cap"))[0]).toBe(1);
      expect((await search("bonus-cap"))[0]).toBe(1);
    } finally {
      database.close();
    }
  });
});
