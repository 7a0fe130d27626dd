import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HashEmbedder } from "../../../src/memory/search/hash-embedder.js";
import { SearchIndex } from "../../../src/memory/search/search-index.js";
import type { Embedder } from "../../../src/memory/search/types.js";
import { DEFAULT_QUANTIZATION } from "../../../src/memory/search/vectors.js";
import { openDatabase, openMemoryDatabase, type SqliteDatabase } from "../../../src/storage/database.js";

let database: SqliteDatabase;
beforeEach(() => {
  database = openMemoryDatabase();
});
afterEach(() => {
  database.close();
});

/** The hash embedder, counting the texts it was asked to embed. */
class CountingEmbedder implements Embedder {
  readonly inner = new HashEmbedder(64);
  readonly id = this.inner.id;
  readonly dimensions = this.inner.dimensions;
  texts = 0;
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.texts += texts.length;
    return this.inner.embed(texts);
  }
}

function rows(table: string): number {
  return Number(database.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get());
}

function tableExists(name: string): boolean {
  return database.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(name) !== undefined;
}

const SEARCHED = { namespace: "memory", scopes: ["owner"] } as const;
const TEXTS = Array.from({ length: 600 }, (_, i) => `fact ${i} about topic${i % 97} and item${i % 31}`);
const QUERIES = ["topic5 item5", "fact 17", "item30 topic96", "about topic12"];

describe("vector store kinds of one model", () => {
  it("moves a float store written by the previous default into binary codes without re-embedding", async () => {
    expect(DEFAULT_QUANTIZATION).toBe("binary");
    const embedder = new CountingEmbedder();
    // Written as every store was before 2026-12-01: float vectors in the vec0 table.
    const old = new SearchIndex(database, { embedder, quantization: "float" });
    old.upsertMany(TEXTS.map((text, i) => ({ namespace: "memory", id: i + 1, scope: "owner", text })));
    await old.embedPending({ batchSize: 200 });
    expect(rows("search_vec_float_64")).toBe(TEXTS.length);
    const before = new Map<string, { id: number; similarity: number }[]>();
    for (const query of QUERIES) before.set(query, await old.nearestVectors(query, SEARCHED, 10, true));
    const embedded = embedder.texts;

    const current = new SearchIndex(database, { embedder });
    expect(current.pendingEmbeddings()).toBe(0);
    expect(tableExists("search_vec_float_64")).toBe(false);
    expect(rows("search_vec_simhash_64")).toBe(TEXTS.length);
    expect(rows("search_vec_full_64")).toBe(TEXTS.length);
    for (const query of QUERIES) {
      const exact = await current.nearestVectors(query, SEARCHED, 10, true);
      // The same float vectors, compared exactly: the same neighbours and similarities.
      expect(exact, query).toEqual(before.get(query));
      const searched = await current.nearestVectors(query, SEARCHED, 10);
      expect(searched[0]?.id, query).toBe(exact[0]?.id);
    }
    // Only the queries were embedded, never a stored memory again.
    expect(embedder.texts - embedded).toBe(QUERIES.length * 2);

    // And back: an explicit float configuration reads the binary store's float vectors.
    const again = new SearchIndex(database, { embedder, quantization: "float" });
    expect(again.pendingEmbeddings()).toBe(0);
    expect(rows("search_vec_float_64")).toBe(TEXTS.length);
    expect(tableExists("search_vec_simhash_64") || tableExists("search_vec_full_64")).toBe(false);
    expect(await again.nearestVectors(QUERIES[0] ?? "", SEARCHED, 10, true)).toEqual(
      before.get(QUERIES[0] ?? ""),
    );
  });

  it("forgets a moved memory's vector everywhere", async () => {
    const embedder = new CountingEmbedder();
    const old = new SearchIndex(database, { embedder, quantization: "float" });
    old.upsertMany(
      TEXTS.slice(0, 50).map((text, i) => ({ namespace: "memory", id: i + 1, scope: "owner", text })),
    );
    await old.embedPending();
    const current = new SearchIndex(database, { embedder });
    expect(current.remove("memory", 7)).toBe(true);
    const tables = database.prepare("SELECT name FROM search_vector_tables").pluck().all() as string[];
    for (const table of tables) {
      const key =
        table.startsWith("search_vec_simhash") || table.startsWith("search_vec_full") ? "id" : "rowid";
      const documentIds = database.prepare(`SELECT ${key} FROM ${table}`).pluck().all() as number[];
      expect(documentIds.length, table).toBe(49);
    }
    const hits = await current.nearestVectors(TEXTS[6] ?? "", SEARCHED, 50, true);
    expect(hits.map((hit) => hit.id)).not.toContain(7);
  });

  it("re-embeds everything when the model changes, as before", async () => {
    const first = new CountingEmbedder();
    const index = new SearchIndex(database, { embedder: first });
    index.upsertMany(
      TEXTS.slice(0, 20).map((text, i) => ({ namespace: "memory", id: i + 1, scope: "owner", text })),
    );
    await index.embedPending();
    const other: Embedder = { id: "other-model", dimensions: 64, embed: (texts) => first.inner.embed(texts) };
    const changed = new SearchIndex(database, { embedder: other });
    expect(changed.pendingEmbeddings()).toBe(20);
    expect(rows("search_vec_simhash_64") + rows("search_vec_full_64")).toBe(0);
  });

  it("leaves no byte of a forgotten memory's vector in any file after the move", async () => {
    const directory = mkdtempSync(join(tmpdir(), "mercury-adopt-"));
    const file = openDatabase(join(directory, "mercury.db"));
    try {
      const embedder = new HashEmbedder(16);
      const old = new SearchIndex(file, { embedder, quantization: "float" });
      old.upsertMany(
        Array.from({ length: 300 }, (_, i) => ({
          namespace: "memory" as const,
          id: i + 1,
          scope: "owner",
          text: `ordinary fact number ${i} about gardening and tea`,
        })),
      );
      old.upsert({ namespace: "memory", id: 999, scope: "owner", text: "zanzibarite quokkaflux diagnosis" });
      await old.embedPending({ batchSize: 500 });
      const vector = Buffer.from(embedder.embedOne("zanzibarite quokkaflux diagnosis").buffer).toString(
        "latin1",
      );
      const current = new SearchIndex(file, { embedder });
      expect(current.pendingEmbeddings()).toBe(0);
      file.pragma("wal_checkpoint(TRUNCATE)");
      expect(allBytes(directory)).toContain(vector);
      expect(current.remove("memory", 999)).toBe(true);
      file.pragma("wal_checkpoint(TRUNCATE)");
      expect(allBytes(directory)).not.toContain(vector);
    } finally {
      file.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

/** Every byte of every file in the folder (database, WAL, shared memory), as latin1 text. */
function allBytes(folder: string): string {
  return readdirSync(folder)
    .map((name) => readFileSync(join(folder, name)).toString("latin1"))
    .join("\n");
}
