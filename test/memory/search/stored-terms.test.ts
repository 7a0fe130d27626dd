import { describe, expect, it } from "vitest";
import { SPEAKER_FIELD } from "../../../src/memory/search/bm25.js";
import { SearchIndex } from "../../../src/memory/search/search-index.js";
import { encodeTerms, parseTerms, StoredTermWeights } from "../../../src/memory/search/stored-terms.js";
import { openMemoryDatabase } from "../../../src/storage/database.js";

const WEIGHTS = new Map([
  ["cat", 2],
  ["scat", 1],
  ["ca", 0.35 * 3],
  [`${SPEAKER_FIELD}melani`, 1],
  ["東京", 1e-7],
]);

describe("stored term weights", () => {
  it("reads back every weight exactly from the compact form, without confusing a term with its prefix or suffix", () => {
    const encoded = encodeTerms(WEIGHTS);
    expect(encoded.startsWith("{")).toBe(false);
    const stored = new StoredTermWeights(encoded);
    for (const [term, weight] of WEIGHTS) expect(stored.get(term), term).toBe(weight);
    expect(stored.get("at")).toBeUndefined();
    expect(stored.get("c")).toBeUndefined();
    expect(stored.get("melani")).toBeUndefined();
    expect([...stored.all()]).toEqual([...WEIGHTS]);
    expect([...parseTerms(encodeTerms(new Map()))]).toEqual([]);
  });

  it("reads the JSON rows written before the compact form, so no migration is needed", () => {
    const json = JSON.stringify(Object.fromEntries(WEIGHTS));
    const stored = new StoredTermWeights(json);
    for (const [term, weight] of WEIGHTS) expect(stored.get(term), term).toBe(weight);
    expect(stored.get("dog")).toBeUndefined();
    expect([...parseTerms(json)]).toEqual([...WEIGHTS]);
  });

  it("falls back to JSON for a term holding a separator and rejects a malformed column", () => {
    const odd = new Map([["a\u0002b", 1]]);
    expect(encodeTerms(odd).startsWith("{")).toBe(true);
    expect([...parseTerms(encodeTerms(odd))]).toEqual([...odd]);
    expect(() => new StoredTermWeights("cat:2")).toThrow(/malformed terms column/);
    expect(() => parseTerms("\u0002cat\u0003x\u0002")).toThrow(/malformed terms column/);
  });

  it("searches and forgets a document stored in the old JSON form alongside new ones", async () => {
    const database = openMemoryDatabase();
    try {
      const index = new SearchIndex(database);
      index.upsertMany([
        { namespace: "memory", id: 1, scope: "owner", text: "Caroline adopted a dog named Rex" },
        { namespace: "memory", id: 2, scope: "owner", text: "Melanie paints sunsets with her dog" },
      ]);
      const row = database.prepare("SELECT terms FROM search_docs WHERE doc_id = 1").pluck().get() as string;
      const json = JSON.stringify(Object.fromEntries(parseTerms(row)));
      database.prepare("UPDATE search_docs SET terms = ? WHERE doc_id = 1").run(json);
      const options = { namespace: "memory" as const, scopes: ["owner"] };
      expect((await index.search("who adopted a dog", options))[0]?.id).toBe(1);
      expect(index.remove("memory", 1)).toBe(true);
      const left = database.prepare("SELECT term FROM search_term_df").pluck().all() as string[];
      expect(left).not.toContain("adopt");
      expect((await index.search("dog", options)).map((hit) => hit.id)).toEqual([2]);
    } finally {
      database.close();
    }
  });
});
