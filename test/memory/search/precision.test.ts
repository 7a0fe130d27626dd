import { describe, expect, it } from "vitest";
import {
  DEFAULT_PRECISION,
  occurNear,
  type PrecisionDocument,
  type PrecisionParameters,
  precisionBonus,
  queryPairs,
  rerankForPrecision,
} from "../../../src/memory/search/precision.js";
import type { LexicalResult } from "../../../src/memory/search/search-index.js";
import { analyze } from "../../../src/memory/text/analyze.js";

const OFF: PrecisionParameters = { depth: 100, proximity: 0, coverage: 0, speaker: 0, role: 0, window: 3 };
const idf = (term: string) => (term === "pottery" || term === "potteri" ? 3 : term.length / 2);

function doc(text: string, speaker = ""): PrecisionDocument {
  return { terms: analyze(text), speaker: analyze(speaker) };
}

describe("queryPairs", () => {
  it("lists adjacent distinct pairs once, in query order", () => {
    expect(queryPairs(["a", "b", "c", "a", "b", "b"])).toEqual([
      ["a", "b"],
      ["b", "c"],
      ["c", "a"],
    ]);
    expect(queryPairs(["only"])).toEqual([]);
  });
});

describe("occurNear", () => {
  const terms = ["x", "pottery", "y", "z", "class", "w"];
  it("finds two terms within the window in either order", () => {
    expect(occurNear(terms, "pottery", "class", 3)).toBe(true);
    expect(occurNear(terms, "class", "pottery", 3)).toBe(true);
  });
  it("does not find them beyond the window or when one is missing", () => {
    expect(occurNear(terms, "pottery", "class", 2)).toBe(false);
    expect(occurNear(terms, "pottery", "absent", 10)).toBe(false);
  });
});

describe("precisionBonus", () => {
  const query = analyze("What did Ann think of the pottery class?");

  it("is 0 with every signal off, for an empty query or an unrelated document", () => {
    expect(precisionBonus(query, doc("pottery class", "Ann"), idf, OFF)).toBe(0);
    expect(precisionBonus([], doc("pottery class", "Ann"), idf)).toBe(0);
    expect(precisionBonus(query, doc("the weather is nice", "Bob"), idf)).toBe(0);
  });

  it("rewards a document spoken by a person the query names, and no one else", () => {
    const parameters = { ...OFF, speaker: 1 };
    const strongest = Math.max(...query.map(idf));
    expect(precisionBonus(query, doc("we talked", "Ann"), idf, parameters)).toBeCloseTo(strongest);
    expect(precisionBonus(query, doc("we talked with Ann", "Bob"), idf, parameters)).toBe(0);
    expect(precisionBonus(query, doc("we talked"), idf, parameters)).toBe(0);
  });

  it("rewards query words standing together more than the same words far apart", () => {
    const parameters = { ...OFF, proximity: 1 };
    const near = precisionBonus(query, doc("my pottery class was fun"), idf, parameters);
    const far = precisionBonus(
      query,
      doc("pottery is fun, but the yoga and the dance and the chess class are not"),
      idf,
      parameters,
    );
    expect(near).toBeGreaterThan(0);
    expect(far).toBe(0);
  });

  it("grows with the share of query words the document's own text holds", () => {
    const parameters = { ...OFF, coverage: 1 };
    const none = precisionBonus(query, doc("nothing relevant"), idf, parameters);
    const some = precisionBonus(query, doc("the class"), idf, parameters);
    const all = precisionBonus(query, doc("Ann thinks the pottery class is great"), idf, parameters);
    expect(none).toBe(0);
    expect(some).toBeGreaterThan(none);
    expect(all).toBeGreaterThan(some);
  });

  it("never goes down when a parameter goes up", () => {
    const document = doc("Ann: my pottery class", "Ann");
    let previous = -1;
    for (const weight of [0, 0.25, 0.5, 1, 2]) {
      const bonus = precisionBonus(query, document, idf, {
        ...OFF,
        proximity: weight,
        coverage: weight,
        speaker: weight,
      });
      expect(bonus).toBeGreaterThanOrEqual(previous);
      previous = bonus;
    }
  });
});

describe("rerankForPrecision", () => {
  const results: LexicalResult[] = Array.from({ length: 12 }, (_, index) => ({
    documentId: index + 1,
    score: 12 - index,
  }));
  const documents = new Map<number, PrecisionDocument>(
    results.map(({ documentId }) => [
      documentId,
      doc(`turn ${documentId}`, documentId % 3 === 0 ? "Ann" : "Bob"),
    ]),
  );
  const documentOf = (id: number) => documents.get(id) ?? doc("");
  const query = analyze("what does Ann like");

  it("returns the same documents, each once", () => {
    const reranked = rerankForPrecision(results, query, documentOf, () => 2);
    expect(reranked.map((r) => r.documentId).sort((a, b) => a - b)).toEqual(results.map((r) => r.documentId));
  });

  it("keeps the first-stage order when no document earns a bonus", () => {
    const reranked = rerankForPrecision(results, query, documentOf, () => 2, OFF);
    expect(reranked).toEqual(results);
  });

  it("reorders only the first depth results, best adjusted score first, never lowering a score", () => {
    const parameters = { ...DEFAULT_PRECISION, depth: 6 };
    const reranked = rerankForPrecision(results, query, documentOf, () => 3, parameters);
    expect(reranked.slice(6)).toEqual(results.slice(6));
    const head = reranked.slice(0, 6);
    for (let index = 1; index < head.length; index++) {
      expect((head[index - 1] as LexicalResult).score).toBeGreaterThanOrEqual(
        (head[index] as LexicalResult).score,
      );
    }
    for (const result of head) {
      const original = results.find((r) => r.documentId === result.documentId);
      expect(result.score).toBeGreaterThanOrEqual(original?.score ?? Number.POSITIVE_INFINITY);
    }
    // Ann's turns (3 and 6) gained the speaker bonus (3 here) and moved up.
    expect(head[0]?.documentId).toBe(3);
  });
});
