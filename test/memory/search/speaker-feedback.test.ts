import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BM25_B, BM25_K1, Bm25Query, bm25Idf, bm25Score } from "../../../src/memory/search/bm25.js";
import { LexicalIndex } from "../../../src/memory/search/lexical.js";
import { SearchIndex } from "../../../src/memory/search/search-index.js";
import type { IndexedDocument } from "../../../src/memory/search/types.js";
import { analyze, termCounts } from "../../../src/memory/text/analyze.js";
import { openMemoryDatabase, type SqliteDatabase } from "../../../src/storage/database.js";

function turn(id: number, text: string, speaker?: string): IndexedDocument {
  const doc: IndexedDocument = { namespace: "episode", id, scope: "owner", text };
  if (speaker !== undefined) doc.speaker = speaker;
  return doc;
}

const SCOPES = { namespace: "episode" as const, scopes: ["owner"] };
const FILLER = ["the weather was grey", "we cooked dinner", "a long walk home", "the train was late"];

let database: SqliteDatabase;
beforeEach(() => {
  database = openMemoryDatabase();
});
afterEach(() => {
  database.close();
});

describe("speaker field", () => {
  it("ranks the turn of the person the query names first, whichever id it has", async () => {
    const index = new SearchIndex(database);
    index.upsertMany([
      turn(1, "we talked about the pottery class", "Bob"),
      turn(2, "we talked about the pottery class", "Ann"),
      ...FILLER.map((text, i) => turn(10 + i, text, i % 2 === 0 ? "Ann" : "Bob")),
    ]);
    const ann = await index.search("What did Ann say about the pottery class?", SCOPES);
    expect(ann.slice(0, 2).map((hit) => hit.id)).toEqual([2, 1]);
    const bob = await index.search("What did Bob say about the pottery class?", SCOPES);
    expect(bob.slice(0, 2).map((hit) => hit.id)).toEqual([1, 2]);
  });

  it("reorders what the words found but never finds a turn by its speaker alone", async () => {
    const index = new SearchIndex(database);
    index.upsertMany([turn(1, "pottery on Sunday", "Bob"), turn(2, "I like the weather", "Ann")]);
    const hits = await index.search("Ann pottery", SCOPES);
    expect(hits.map((hit) => hit.id)).toEqual([1]);
  });

  it("does not count the speaker in BM25 document length or term matching", async () => {
    const texts = ["dog walks in the park", "a dog", "long walks by the sea with friends", "cats"];
    const plain = openMemoryDatabase();
    try {
      const withSpeaker = new SearchIndex(database, { precision: false, feedback: false });
      const without = new SearchIndex(plain, { precision: false, feedback: false });
      withSpeaker.upsertMany(texts.map((text, i) => turn(i + 1, text, "Walker Dog")));
      without.upsertMany(texts.map((text, i) => turn(i + 1, text)));
      const a = await withSpeaker.search("dog walks", SCOPES);
      const b = await without.search("dog walks", SCOPES);
      expect(a.map((hit) => [hit.id, hit.relevance])).toEqual(b.map((hit) => [hit.id, hit.relevance]));
    } finally {
      plain.close();
    }
  });

  it("leaves no speaker term behind when the turn is removed", async () => {
    const index = new SearchIndex(database);
    index.upsert(turn(1, "pottery", "Zebulon"));
    index.remove("episode", 1);
    const terms = database.prepare("SELECT term FROM search_term_df").pluck().all() as string[];
    expect(terms.filter((term) => term.includes("zebulon"))).toEqual([]);
    expect(Number(database.prepare("SELECT COUNT(*) FROM search_docs").pluck().get())).toBe(0);
  });
});

describe("feedback rescoring", () => {
  it("reorders the first-pass pool and never replaces its documents", async () => {
    const texts = Array.from(
      { length: 60 },
      (_, i) =>
        `note ${i} about ${i % 4 === 0 ? "garden tomatoes" : "kitchen"} ${i % 7 === 0 ? "basil" : "salt"}`,
    );
    const withFeedback = new SearchIndex(database, { precision: false });
    withFeedback.upsertMany(texts.map((text, i) => turn(i + 1, text)));
    const without = new SearchIndex(database, { precision: false, feedback: false });
    for (const query of ["garden", "kitchen basil", "tomatoes salt"]) {
      const options = { ...SCOPES, pool: 8 };
      const a = await withFeedback.search(query, options);
      const b = await without.search(query, options);
      expect(new Set(a.map((hit) => hit.id)), query).toEqual(new Set(b.map((hit) => hit.id)));
    }
  });

  it("scores weighted query terms exactly (second stage over stored terms)", () => {
    const texts = Array.from(
      { length: 40 },
      (_, i) =>
        `${i % 2 === 0 ? "apple" : "pear"} ${i % 3 === 0 ? "cider" : "juice"} ${i % 5 === 0 ? "orchard" : ""}`,
    );
    const lexical = new LexicalIndex(database);
    database.transaction(() => {
      texts.forEach((text, i) => {
        lexical.upsert(turn(i + 1, text));
      });
    })();
    const stats = lexical.scopeStats("episode", ["owner"]);
    const docs = texts.map((text) => termCounts(analyze(text)));
    const average =
      docs.reduce((sum, d) => sum + [...d.values()].reduce((a, b) => a + b, 0), 0) / docs.length;
    const bm25 = (i: number, weights: Map<string, number>) => {
      const d = docs[i] as Map<string, number>;
      const length = [...d.values()].reduce((a, b) => a + b, 0);
      let score = 0;
      for (const [term, weight] of weights) {
        const tf = d.get(term) ?? 0;
        if (tf === 0) continue;
        const df = docs.filter((other) => other.has(term)).length;
        score +=
          (weight * bm25Idf(docs.length, df) * tf * (BM25_K1 + 1)) /
          (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / average));
      }
      return score;
    };
    const extra = new Map([
      ["appl", 0.3],
      ["orchard", 0.2],
    ]);
    const weights = new Map([["cider", 1], ...extra]);
    const ids = lexical.candidates([...weights.keys()], stats.ids, 100);
    expect(ids.length).toBeGreaterThan(10);
    const stored = lexical.termsOf(ids);
    const idf = (term: string) => bm25Idf(stats.documents, lexical.documentFrequency(term, stats.ids));
    for (const id of ids) {
      const document = stored.get(id);
      if (!document) throw new Error(`no stored terms for ${id}`);
      const score = bm25Score(weights, document.terms, document.length, stats.averageLength, idf, {
        k1: BM25_K1,
        b: BM25_B,
      });
      expect(score).toBeCloseTo(bm25(id - 1, weights), 9);
      // The second stage's per-query scorer: the same arithmetic, so the same score to the last bit.
      const query = new Bm25Query(weights, idf, { k1: BM25_K1, b: BM25_B });
      expect(query.score(document.terms, document.length, stats.averageLength)).toBe(score);
    }
  });
});
