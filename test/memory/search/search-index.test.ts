import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BM25_B, BM25_K1, bm25Idf } from "../../../src/memory/search/bm25.js";
import { LexicalIndex } from "../../../src/memory/search/lexical.js";
import { relatedTerms } from "../../../src/memory/search/query.js";
import { FIRST_STAGE_BUDGET, SearchIndex } from "../../../src/memory/search/search-index.js";
import type { IndexedDocument } from "../../../src/memory/search/types.js";
import { analyze, termCounts } from "../../../src/memory/text/analyze.js";
import { openMemoryDatabase, type SqliteDatabase } from "../../../src/storage/database.js";

const INDEX_TABLES = ["search_scopes", "search_term_df", "search_docs", "search_fts"];

function count(database: SqliteDatabase, table: string): number {
  return Number(database.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get());
}

function memory(id: number, text: string, scope = "owner"): IndexedDocument {
  return { namespace: "memory", id, scope, text };
}

let database: SqliteDatabase;
beforeEach(() => {
  database = openMemoryDatabase();
});
afterEach(() => {
  database.close();
});

describe("SearchIndex", () => {
  it("finds a document whatever the punctuation, case or quotes of the query", async () => {
    const index = new SearchIndex(database);
    index.upsertMany([
      memory(1, "Caroline's favourite book is Dune"),
      memory(2, "Melanie runs every morning"),
    ]);
    for (const query of [
      "caroline's favourite book",
      "CAROLINE favourite BOOK?",
      '"Caroline" — favourite book…',
    ]) {
      const hits = await index.search(query, { namespace: "memory", scopes: ["owner"] });
      expect(hits[0]?.id).toBe(1);
    }
  });

  it("finds CJK text with a CJK query", async () => {
    const index = new SearchIndex(database);
    index.upsertMany([
      memory(1, "我喜欢在东京吃寿司"),
      memory(2, "東京タワーの近くに住んでいます"),
      memory(3, "서울에서 커피를 마셔요"),
      memory(4, "I like coffee in Paris"),
    ]);
    expect((await index.search("寿司", { namespace: "memory", scopes: ["owner"] }))[0]?.id).toBe(1);
    expect((await index.search("東京タワー", { namespace: "memory", scopes: ["owner"] }))[0]?.id).toBe(2);
    expect((await index.search("서울", { namespace: "memory", scopes: ["owner"] }))[0]?.id).toBe(3);
  });

  it("never returns a document of another scope", async () => {
    const index = new SearchIndex(database);
    index.upsertMany([
      memory(1, "my bank pin is in the blue notebook", "telegram:42"),
      memory(2, "owner likes tea"),
    ]);
    const owner = await index.search("bank pin notebook", { namespace: "memory", scopes: ["owner"] });
    expect(owner.map((hit) => hit.id)).not.toContain(1);
    const member = await index.search("bank pin notebook", { namespace: "memory", scopes: ["telegram:42"] });
    expect(member.map((hit) => hit.id)).toEqual([1]);
    expect(member[0]?.scope).toBe("telegram:42");
  });

  it("keeps namespaces apart", async () => {
    const index = new SearchIndex(database);
    index.upsert({ namespace: "episode", id: 1, scope: "owner", text: "we talked about sailing" });
    index.upsert(memory(1, "user loves sailing"));
    const hits = await index.search("sailing", { namespace: "memory", scopes: ["owner"] });
    expect(hits.map((hit) => [hit.namespace, hit.id])).toEqual([["memory", 1]]);
  });

  it("remove leaves no trace in any index table, including its words", async () => {
    const index = new SearchIndex(database);
    index.upsert(memory(1, "a common phrase about tea"));
    const before = Object.fromEntries(INDEX_TABLES.map((table) => [table, count(database, table)]));
    index.upsert(memory(2, "secret diagnosis: hypothyroidism", "telegram:7"));
    expect(index.remove("memory", 2)).toBe(true);
    const after = Object.fromEntries(INDEX_TABLES.map((table) => [table, count(database, table)]));
    expect(after).toEqual(before);
    const dictionary = database.prepare("SELECT term FROM search_term_df").pluck().all();
    expect(dictionary).not.toContain("hypothyroid");
    expect(
      database.prepare("SELECT COUNT(*) FROM search_docs WHERE text LIKE '%diagnosis%'").pluck().get(),
    ).toBe(0);
    expect(await index.search("hypothyroidism", { namespace: "memory", scopes: ["telegram:7"] })).toEqual([]);
    expect(index.remove("memory", 2)).toBe(false);
  });

  it("removing every document empties every index table", () => {
    const index = new SearchIndex(database);
    index.upsertMany([memory(1, "one fact"), memory(2, "two facts", "telegram:1"), memory(3, "three")]);
    index.remove("memory", 1);
    expect(index.removeScope("memory", "telegram:1")).toBe(1);
    index.remove("memory", 3);
    for (const table of INDEX_TABLES) expect(count(database, table), table).toBe(0);
  });

  it("upsert replaces the old text completely", async () => {
    const index = new SearchIndex(database);
    index.upsert(memory(1, "user lives in Berlin"));
    index.upsert(memory(1, "user lives in Lisbon"));
    expect(await index.search("Berlin", { namespace: "memory", scopes: ["owner"] })).toEqual([]);
    expect((await index.search("Lisbon", { namespace: "memory", scopes: ["owner"] }))[0]?.id).toBe(1);
    expect(count(database, "search_docs")).toBe(1);
  });

  it("sees writes made through another SearchIndex on the same database (caches reload)", async () => {
    const reader = new SearchIndex(database);
    const writer = new SearchIndex(database);
    writer.upsert(memory(1, "user plays cello"));
    expect((await reader.search("cello", { namespace: "memory", scopes: ["owner"] })).length).toBe(1);
    writer.upsert(memory(2, "user plays the cello daily"));
    expect((await reader.search("cello", { namespace: "memory", scopes: ["owner"] })).length).toBe(2);
    writer.remove("memory", 1);
    expect(
      (await reader.search("cello", { namespace: "memory", scopes: ["owner"] })).map((hit) => hit.id),
    ).toEqual([2]);
  });

  it("returns relevance in [0, 1], best first, with lexical ranks", async () => {
    const index = new SearchIndex(database, { feedback: false });
    index.upsertMany([
      memory(1, "user drinks green tea every morning"),
      memory(2, "user drinks coffee"),
      memory(3, "green tea and green tea and more green tea"),
      memory(4, "nothing relevant here"),
    ]);
    const hits = await index.search("green tea", { namespace: "memory", scopes: ["owner"] });
    expect(hits.length).toBe(2);
    expect(hits[0]?.relevance).toBeCloseTo(1);
    for (const hit of hits) {
      expect(hit.relevance).toBeGreaterThan(0);
      expect(hit.relevance).toBeLessThanOrEqual(1);
      expect(hit.vectorRank).toBeNull();
    }
    expect(hits.map((hit) => hit.lexicalRank)).toEqual([1, 2]);
    expect(hits[1]?.relevance ?? 1).toBeLessThan(hits[0]?.relevance ?? 0);
  });

  it("scores exactly BM25 (checked against a direct computation)", async () => {
    const texts = [
      "the user adopted a dog named Rex",
      "Rex the dog likes long walks in the park",
      "the user walks to work",
      "a cat named Tom",
      "dog food and dog toys for the dog",
    ];
    const index = new SearchIndex(database, { feedback: false, expandQuery: false });
    index.upsertMany(texts.map((text, i) => memory(i + 1, text)));
    const docs = texts.map((text) => termCounts(analyze(text)));
    const lengths = docs.map((terms) => [...terms.values()].reduce((a, b) => a + b, 0));
    const average = lengths.reduce((a, b) => a + b, 0) / docs.length;
    const query = ["dog", "walk"];
    const expected = docs.map((terms, i) => {
      let score = 0;
      for (const term of query) {
        const tf = terms.get(term) ?? 0;
        const df = docs.filter((d) => d.has(term)).length;
        if (tf === 0) continue;
        const denominator = tf + BM25_K1 * (1 - BM25_B + (BM25_B * (lengths[i] ?? 0)) / average);
        score += (bm25Idf(docs.length, df) * tf * (BM25_K1 + 1)) / denominator;
      }
      return { id: i + 1, score };
    });
    const order = expected
      .filter((e) => e.score > 0)
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .map((e) => e.id);
    const hits = await index.search("dog walks", { namespace: "memory", scopes: ["owner"] });
    expect(hits.map((hit) => hit.id)).toEqual(order);
  });

  it("expands related terms at a lower weight", async () => {
    const index = new SearchIndex(database, { feedback: false });
    index.upsertMany([memory(1, "my children love the zoo"), memory(2, "my kids love the zoo")]);
    const hits = await index.search("kids", { namespace: "memory", scopes: ["owner"] });
    expect(hits.map((hit) => hit.id)).toEqual([2, 1]);
  });

  it("rejects bad input with a clear error", async () => {
    const index = new SearchIndex(database);
    expect(() => index.upsert(memory(1.5, "x"))).toThrow(/integer/);
    expect(() => index.upsert(memory(1, "x", " "))).toThrow(/empty scope/);
    await expect(index.search("x", { namespace: "memory", scopes: ["owner"], pool: 0 })).rejects.toThrow(
      /pool/,
    );
  });

  it("returns nothing for an empty or stopword-only query, or unknown scopes", async () => {
    const index = new SearchIndex(database);
    index.upsert(memory(1, "user likes tea"));
    expect(await index.search("", { namespace: "memory", scopes: ["owner"] })).toEqual([]);
    expect(await index.search("the of and", { namespace: "memory", scopes: ["owner"] })).toEqual([]);
    expect(await index.search("tea", { namespace: "memory", scopes: [] })).toEqual([]);
    expect(await index.search("tea", { namespace: "memory", scopes: ["nobody"] })).toEqual([]);
  });

  it("honours an aborted signal", async () => {
    const index = new SearchIndex(database);
    index.upsert(memory(1, "user likes tea"));
    const controller = new AbortController();
    controller.abort();
    await expect(
      index.search("tea", { namespace: "memory", scopes: ["owner"], signal: controller.signal }),
    ).rejects.toThrow();
  });
});

describe("SearchIndex pruning", () => {
  it("returns exactly the exhaustive BM25 top-k when long posting lists are pruned", async () => {
    const database = openMemoryDatabase();
    try {
      const words = ["apple", "banana", "cherry", "damson", "elder", "fig", "grape", "hazel"];
      const texts = Array.from({ length: 400 }, (_, i) => {
        const picked = words.filter((_, w) => (i * (w + 3)) % (w + 2) === 0);
        return `user ${picked.join(" ")} ${i % 3 === 0 ? "user" : ""} note${i % 50}`;
      });
      const index = new SearchIndex(database, { feedback: false, expandQuery: false });
      index.upsertMany(texts.map((text, i) => memory(i + 1, text)));
      const docs = texts.map((text) => termCounts(analyze(text)));
      const lengths = docs.map((terms) => [...terms.values()].reduce((a, b) => a + b, 0));
      const average = lengths.reduce((a, b) => a + b, 0) / docs.length;
      for (const query of ["user hazel", "user apple grape note7", "user banana", "user"]) {
        const terms = [...new Set(analyze(query))];
        const expected = docs
          .map((d, i) => {
            let score = 0;
            for (const term of terms) {
              const tf = d.get(term) ?? 0;
              if (tf === 0) continue;
              const df = docs.filter((other) => other.has(term)).length;
              score +=
                (bm25Idf(docs.length, df) * tf * (BM25_K1 + 1)) /
                (tf + BM25_K1 * (1 - BM25_B + (BM25_B * (lengths[i] ?? 0)) / average));
            }
            return { id: i + 1, score };
          })
          .filter((e) => e.score > 0)
          .sort((a, b) => b.score - a.score || a.id - b.id)
          .slice(0, 5)
          .map((e) => e.id);
        const hits = await index.search(query, { namespace: "memory", scopes: ["owner"], pool: 5 });
        expect(
          hits.map((hit) => hit.id),
          query,
        ).toEqual(expected);
      }
    } finally {
      database.close();
    }
  });
});

describe("SearchIndex first stage bounded by the work of the query", () => {
  // The bound depends on the documents a query's words match, not on the store's size, so small
  // stores with a small budget exercise the same path a million memories take with the default one.
  const STORE = 1_100;

  it("finds the rare word's document first and answers a query of only common words with the newest", async () => {
    const docs: IndexedDocument[] = Array.from({ length: STORE }, (_, i) =>
      memory(i + 1, `user likes item${i % 50}`),
    );
    docs.push(memory(STORE + 1000, "user has asthma"));
    new SearchIndex(database).upsertMany(docs);
    const bounded = new SearchIndex(database, { firstStageBudget: 100 });
    const rare = await bounded.search("does the user have asthma", {
      namespace: "memory",
      scopes: ["owner"],
    });
    expect(rare[0]?.id).toBe(STORE + 1000);
    const common = await bounded.search("user", { namespace: "memory", scopes: ["owner"] });
    expect(common.length).toBe(100);
    // "user" is in every document: ranking them all would score the whole store, so the newest come.
    expect(common.map((hit) => hit.id).sort((x, y) => y - x)[0]).toBe(STORE + 1000);
    expect(Math.min(...common.map((hit) => hit.id))).toBeGreaterThan(STORE - 200);
  });

  it("ranks every match when the store holds no more documents than the budget, whatever the words match", async () => {
    const texts = Array.from({ length: 400 }, (_, i) =>
      [`user likes item${i % 40}`, i % 2 === 0 ? "morning" : "evening", i % 3 === 0 ? "coffee" : "tea"].join(
        " ",
      ),
    );
    new SearchIndex(database).upsertMany(texts.map((text, i) => memory(i + 1, text)));
    // The words' document counts add up to far more than 400, but only 400 documents can match.
    const bounded = new SearchIndex(database, { firstStageBudget: 400 });
    const unbounded = new SearchIndex(database, { firstStageBudget: Number.POSITIVE_INFINITY });
    for (const query of ["user morning coffee", "user likes item7 in the evening", "user"]) {
      const options = { namespace: "memory" as const, scopes: ["owner"] };
      expect(
        (await bounded.search(query, options)).map((hit) => hit.id),
        query,
      ).toEqual((await unbounded.search(query, options)).map((hit) => hit.id));
    }
    expect(FIRST_STAGE_BUDGET).toBeGreaterThan(1_000);
  });

  it("with a bounded first stage, ranks first the documents holding every word, as an unbounded one does", async () => {
    const texts = Array.from({ length: STORE }, (_, i) =>
      [i % 3 === 0 ? "alpha" : "", i % 5 === 0 ? "beta" : "", i % 7 === 0 ? "gamma" : "", `note${i % 50}`]
        .filter((word) => word !== "")
        .join(" "),
    );
    new SearchIndex(database).upsertMany(texts.map((text, i) => memory(i + 1, text)));
    // A budget far below the words' document counts forces the bounded path.
    const bounded = new SearchIndex(database, { firstStageBudget: 50 });
    const unbounded = new SearchIndex(database, { firstStageBudget: Number.POSITIVE_INFINITY });
    for (const query of ["alpha beta gamma", "alpha gamma", "beta note10"]) {
      const expected = (await unbounded.search(query, { namespace: "memory", scopes: ["owner"] })).slice(
        0,
        10,
      );
      const found = (await bounded.search(query, { namespace: "memory", scopes: ["owner"] })).slice(0, 10);
      expect(
        found.map((hit) => hit.id),
        query,
      ).toEqual(expected.map((hit) => hit.id));
      const first = texts[(found[0]?.id ?? 0) - 1] ?? "";
      for (const word of analyze(query)) expect(first.split(" "), query).toContain(word);
    }
  });

  it("with a bounded first stage, takes a conjunction whole when it overflows the limit but fits in twice it", async () => {
    const docs: IndexedDocument[] = Array.from({ length: STORE }, (_, i) =>
      memory(i + 1, `user likes item${i % 50}`),
    );
    let id = docs.length;
    for (let i = 0; i < 300; i++) docs.push(memory(++id, `alpha note ${i}`));
    for (let i = 0; i < 300; i++) docs.push(memory(++id, `beta note ${i}`));
    // 15 documents hold both words: more than the limit (pool 5 x 2 = 10), fewer than twice it.
    for (let i = 0; i < 15; i++)
      docs.push(memory(++id, `alpha beta ${"alpha ".repeat(i % 4)}${"filler ".repeat(i % 6)}end`));
    new SearchIndex(database).upsertMany(docs);
    const options = { namespace: "memory" as const, scopes: ["owner"], pool: 5 };
    const bounded = new SearchIndex(database, { firstStageBudget: 50 });
    const unbounded = new SearchIndex(database, { firstStageBudget: Number.POSITIVE_INFINITY });
    const found = (await bounded.search("alpha beta", options)).map((hit) => hit.id);
    expect(found).toHaveLength(5);
    expect(found).toEqual((await unbounded.search("alpha beta", options)).map((hit) => hit.id));
  });

  it("with a bounded first stage, a related word no document shares with the others does not hide the answer", async () => {
    const docs: IndexedDocument[] = Array.from({ length: STORE }, (_, i) =>
      memory(i + 1, `user likes item${i % 50}`),
    );
    let id = docs.length;
    for (let i = 0; i < 300; i++) docs.push(memory(++id, `user's friend number ${i} has asthma`));
    for (let i = 0; i < 300; i++) docs.push(memory(++id, `user's cousin number ${i} has an allergy`));
    for (let i = 0; i < 300; i++) docs.push(memory(++id, `user takes medication for migraines, dose ${i}`));
    const answer = ++id;
    docs.push(memory(answer, "user has asthma and takes medication every morning"));
    new SearchIndex(database).upsertMany(docs);
    const bounded = new SearchIndex(database, { firstStageBudget: 100 });
    // "asthma" brings the related "allergy" at a lower weight: no document holds all four words.
    const hits = await bounded.search("What medication does the user take for asthma?", {
      namespace: "memory",
      scopes: ["owner"],
    });
    expect(hits[0]?.id).toBe(answer);
  });

  it("gives every document holding all the words, ranked or not, when they fit in the limit", () => {
    const lexical = new LexicalIndex(database);
    const docs: IndexedDocument[] = [];
    let id = 0;
    for (let i = 0; i < 40; i++)
      docs.push(memory(++id, `user's dog ${i % 7 === 0 ? "Rex " : ""}likes the park`));
    for (let i = 0; i < 40; i++) docs.push(memory(++id, `user's cat likes the park ${i}`));
    database.transaction(() => {
      for (const doc of docs) lexical.upsert(doc);
    })();
    const { ids } = lexical.scopeStats("memory", ["owner"]);
    const filter = lexical.scopeFilter(ids);
    const rex = docs.filter((doc) => doc.text.includes("Rex")).map((doc) => doc.id);
    const words = ["rex", "dog", "park"];
    // Fits: the unranked answer, as a set, is every matching document (what ranking would return).
    const all = lexical.candidates(words, filter, rex.length, { all: true });
    expect(new Set(all)).toEqual(new Set(rex));
    expect(all).toHaveLength(rex.length);
    // Does not fit: the ranked query decides which documents are kept, never more than the limit.
    const some = lexical.candidates(["dog", "park"], filter, 5, { all: true });
    expect(some).toHaveLength(5);
    for (const documentId of some) expect(documentId).toBeLessThanOrEqual(40);
    expect(lexical.candidates(["dog", "cat"], filter, 5, { all: true })).toEqual([]);
    // Fits in `whole` but not in the limit: every match, a superset of the ranked answer.
    const dogs = docs.filter((doc) => doc.text.includes("dog")).map((doc) => doc.id);
    const whole = lexical.candidates(["dog", "park"], filter, 5, { all: true, whole: dogs.length });
    expect(new Set(whole)).toEqual(new Set(dogs));
    for (const documentId of some) expect(whole).toContain(documentId);
    // More than `whole`: ranked again, never more than the limit.
    expect(lexical.candidates(["dog", "park"], filter, 5, { all: true, whole: dogs.length - 1 })).toEqual(
      some,
    );
    // More than `whole` with `ends`: its first and last `ends` matches in rowid order, unranked.
    const ends = lexical.candidates(["dog", "park"], filter, 5, { all: true, whole: 8, ends: 3 });
    const dogRowids = [...lexical.candidates(["dog", "park"], filter, 5, { all: true, whole: dogs.length })];
    dogRowids.sort((x, y) => x - y);
    expect(new Set(ends)).toEqual(new Set([...dogRowids.slice(0, 3), ...dogRowids.slice(-3)]));
    expect(ends).toHaveLength(6);
    // `ends` as large as the conjunction: every match, once.
    const every = lexical.candidates(["dog", "park"], filter, 5, { all: true, whole: 8, ends: dogs.length });
    expect(new Set(every)).toEqual(new Set(dogRowids));
    expect(every).toHaveLength(dogs.length);
  });

  it("with a bounded first stage, a conjunction of more than twice the limit gives the top results exact ranking gives", async () => {
    const docs: IndexedDocument[] = Array.from({ length: STORE }, (_, i) =>
      memory(i + 1, `user likes item${i % 50}`),
    );
    let id = docs.length;
    // The scale benchmark's shape: one sentence pattern with a varying name, so the frequent words'
    // conjunction (300 matches, 30 times the limit of pool 5 x 2) is of nearly equal documents.
    const names = ["Neovim", "Emacs", "Docker", "Git"];
    for (let i = 0; i < 300; i++)
      docs.push(memory(++id, `The user is learning Rust and uses ${names[i % 4]} every day.`));
    for (let i = 0; i < 300; i++) docs.push(memory(++id, `The user's project uses Go, number ${i}.`));
    for (let i = 0; i < 300; i++) docs.push(memory(++id, `The user reads about Rust, chapter ${i}.`));
    // The newest and the shortest holding both words: exact ranking's first.
    const newest = ++id;
    docs.push(memory(newest, "The user uses Rust with an editor."));
    new SearchIndex(database).upsertMany(docs);
    const options = { namespace: "memory" as const, scopes: ["owner"], pool: 5 };
    const bounded = new SearchIndex(database, { firstStageBudget: 100 });
    const unbounded = new SearchIndex(database, { firstStageBudget: Number.POSITIVE_INFINITY });
    const query = "Which tool does the user use with Rust?";
    const spy = vi.spyOn(LexicalIndex.prototype, "candidates");
    const found = (await bounded.search(query, options)).map((hit) => hit.id);
    // The bounded path was taken: "rust" AND "us" overflows and is answered without ranking.
    expect(spy.mock.calls.some((call) => (call[3]?.ends ?? 0) > 0)).toBe(true);
    spy.mockRestore();
    const expected = (await unbounded.search(query, options)).map((hit) => hit.id);
    expect(expected[0]).toBe(newest);
    expect(found).toEqual(expected);
    // A budget above the rarest word's 601 documents: FTS5 may score them all, so the step is ranked.
    const ranking = vi.spyOn(LexicalIndex.prototype, "candidates");
    const ranked = await new SearchIndex(database, { firstStageBudget: 700 }).search(query, options);
    expect(ranking.mock.calls.some((call) => call[3]?.all === true)).toBe(true);
    expect(ranking.mock.calls.some((call) => (call[3]?.ends ?? 0) > 0)).toBe(false);
    ranking.mockRestore();
    expect(ranked.map((hit) => hit.id)).toEqual(expected);
  });

  it("with a bounded first stage, intersects the query's own words only, not the related terms it was expanded with", async () => {
    const docs: IndexedDocument[] = [];
    let id = 0;
    for (let i = 0; i < 300; i++) docs.push(memory(++id, `user takes medication for asthma, dose ${i}`));
    for (let i = 0; i < 300; i++) docs.push(memory(++id, `user's cousin number ${i} has an allergy`));
    for (let i = 0; i < 600; i++) docs.push(memory(++id, `user likes item${i % 50}`));
    new SearchIndex(database).upsertMany(docs);
    expect(relatedTerms("medic")).toContain("allergi");
    const intersected: string[][] = [];
    // A spy calls through: the search runs as it does, and the intersections it asked for are kept.
    const spy = vi.spyOn(LexicalIndex.prototype, "candidates");
    const bounded = new SearchIndex(database, { firstStageBudget: 100 });
    const hits = await bounded.search("What medication does the user take for asthma?", {
      namespace: "memory",
      scopes: ["owner"],
    });
    for (const call of spy.mock.calls) if (call[3]?.all) intersected.push([...call[0]]);
    spy.mockRestore();
    expect(hits[0]?.id).toBeLessThanOrEqual(300);
    expect(intersected.length).toBeGreaterThan(0);
    for (const terms of intersected) expect(terms).not.toContain("allergi");
  });
});
