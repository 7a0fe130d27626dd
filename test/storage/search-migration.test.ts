import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SearchIndex } from "../../src/memory/search/search-index.js";
import type { SearchNamespace } from "../../src/memory/search/types.js";
import { latestSchemaVersion, openDatabase, schemaVersion } from "../../src/storage/database.js";

// mercury-v10.db was written by the schema-10 build (hand-written BM25 tables) with make.mjs beside
// it, which also recorded the top result of each query on that engine in expected.json.
const fixture = join(import.meta.dirname, "../fixtures/search-v10");
const expected = JSON.parse(readFileSync(join(fixture, "expected.json"), "utf8")) as {
  counts: Record<SearchNamespace, number>;
  queries: { namespace: SearchNamespace; scope: string; query: string; top: number | null; found: number }[];
};

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

function copyOfFixture(): string {
  home = mkdtempSync(join(tmpdir(), "mercury-migration-"));
  const path = join(home, "mercury.db");
  copyFileSync(join(fixture, "mercury-v10.db"), path);
  return path;
}

describe("migration 011 (search on FTS5)", () => {
  it("moves every memory and episode of a schema-10 database, and the same queries find the same top result", async () => {
    const path = copyOfFixture();
    const database = openDatabase(path);
    try {
      expect(schemaVersion(database)).toBe(latestSchemaVersion());
      // The previous engine's ranking settings (b = 0.5, feedback on): with the data moved without
      // loss, every query finds the same top result as before the migration.
      const index = new SearchIndex(database, { bm25: { k1: 1.2, b: 0.5 }, feedback: true });
      const current = new SearchIndex(database);
      for (const namespace of ["memory", "episode"] as const) {
        const count = database
          .prepare("SELECT COUNT(*) FROM search_docs WHERE namespace = ?")
          .pluck()
          .get(namespace);
        expect(Number(count), namespace).toBe(expected.counts[namespace]);
      }
      expect(expected.queries.filter((query) => query.top !== null).length).toBeGreaterThan(10);
      for (const query of expected.queries) {
        const hits = await index.search(query.query, { namespace: query.namespace, scopes: [query.scope] });
        expect(hits[0]?.id ?? null, query.query).toBe(query.top);
        // With today's defaults the former top result is still found.
        const now = await current.search(query.query, { namespace: query.namespace, scopes: [query.scope] });
        if (query.top !== null)
          expect(
            now.map((hit) => hit.id),
            query.query,
          ).toContain(query.top);
      }
      // The episodes' turn times came along as the time they happened.
      const times = database
        .prepare("SELECT occurred_at FROM search_docs WHERE namespace = 'episode'")
        .pluck()
        .all() as (string | null)[];
      expect(times.every((time) => time !== null && !Number.isNaN(Date.parse(time)))).toBe(true);
      for (const table of ["search_postings", "search_terms", "search_documents", "search_vectors"]) {
        const exists = database.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(table);
        expect(exists, table).toBeUndefined();
      }
    } finally {
      database.close();
    }
  });

  it("writes the FTS5 rows once: a second start finds the same without rebuilding", async () => {
    const path = copyOfFixture();
    const first = openDatabase(path);
    new SearchIndex(first);
    first.close();
    const second = openDatabase(path);
    try {
      expect(
        second.prepare("SELECT value FROM search_state WHERE key = 'fts_rebuild'").get(),
      ).toBeUndefined();
      const index = new SearchIndex(second);
      const query = expected.queries[0];
      if (!query) throw new Error("expected.json has no query");
      const hits = await index.search(query.query, { namespace: query.namespace, scopes: [query.scope] });
      expect(hits[0]?.id).toBe(query.top);
    } finally {
      second.close();
    }
  });
});
