import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HashEmbedder } from "../../../src/memory/search/hash-embedder.js";
import { SearchIndex } from "../../../src/memory/search/search-index.js";
import { SearchIndexCore } from "../../../src/memory/search/search-index-core.js";
import { RESCORE_FACTOR, rescoreCandidates, VECTOR_MMAP_BYTES } from "../../../src/memory/search/vectors.js";
import { openDatabase } from "../../../src/storage/database.js";

describe("binary scan candidates", () => {
  it("rescores RESCORE_FACTOR x the pool up to 100,000 documents, then grows with the square root of the store", () => {
    expect(rescoreCandidates(100, 10)).toBe(100 * RESCORE_FACTOR);
    expect(rescoreCandidates(100, 100_000)).toBe(100 * RESCORE_FACTOR);
    expect(rescoreCandidates(100, 400_000)).toBe(2 * 100 * RESCORE_FACTOR);
    expect(rescoreCandidates(100, 1_000_000)).toBe(Math.ceil(100 * RESCORE_FACTOR * Math.sqrt(10)));
    expect(rescoreCandidates(10, 1_000_000)).toBeLessThan(rescoreCandidates(100, 1_000_000));
  });
});

describe("memory-mapped reads", () => {
  it("maps the database file for a connection that searched vectors, from its first search on, not for a word-only one", async () => {
    const directory = mkdtempSync(join(tmpdir(), "mercury-vectors-"));
    try {
      const wordsOnly = openDatabase(join(directory, "words.db"));
      new SearchIndexCore(wordsOnly);
      expect(Number(wordsOnly.pragma("mmap_size", { simple: true }))).toBe(0);
      wordsOnly.close();

      const database = openDatabase(join(directory, "hybrid.db"));
      const index = new SearchIndex(database, { embedder: new HashEmbedder(384) });
      index.upsertMany([
        { namespace: "memory", id: 1, scope: "owner", text: "The user's sister lives in Lisbon" },
        { namespace: "memory", id: 2, scope: "owner", text: "The user drinks green tea every morning" },
      ]);
      expect(await index.embedPending()).toBe(2);
      // Not before the first search: embedding a whole store would map every document's text.
      expect(Number(database.pragma("mmap_size", { simple: true }))).toBe(0);
      const hits = await index.search("Where does the sister live?", {
        namespace: "memory",
        scopes: ["owner"],
      });
      expect(hits[0]?.id).toBe(1);
      expect(hits[0]?.vectorRank).toBe(1);
      expect(Number(database.pragma("mmap_size", { simple: true }))).toBe(VECTOR_MMAP_BYTES);
      database.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
