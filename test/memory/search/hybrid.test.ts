import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HashEmbedder } from "../../../src/memory/search/hash-embedder.js";
import { OpenAICompatibleEmbedder } from "../../../src/memory/search/openai-embedder.js";
import { SearchIndex } from "../../../src/memory/search/search-index.js";
import { type Embedder, EmbeddingError } from "../../../src/memory/search/types.js";
import { openMemoryDatabase, type SqliteDatabase } from "../../../src/storage/database.js";
import { type EmbeddingsServer, startEmbeddingsServer } from "../../fakes/embeddings-server.js";

let database: SqliteDatabase;
let server: EmbeddingsServer | undefined;
beforeEach(() => {
  database = openMemoryDatabase();
});
afterEach(async () => {
  database.close();
  await server?.close();
  server = undefined;
});

/** Vectors in every sqlite-vec table the index created. */
function vectorCount(): number {
  const tables = database.prepare("SELECT name FROM search_vector_tables").pluck().all() as string[];
  return tables.reduce(
    (sum, table) => sum + Number(database.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get()),
    0,
  );
}

/** An embedder that maps a few words onto the same axis, as a real model maps synonyms. */
class SynonymEmbedder implements Embedder {
  readonly id = "synonym-test";
  readonly dimensions = 3;
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      const lower = text.toLowerCase();
      return Float32Array.from([
        /automobile|car|vehicle/.test(lower) ? 1 : 0,
        /feline|cat|kitten/.test(lower) ? 1 : 0,
        0.05,
      ]);
    });
  }
}

describe("hybrid search", () => {
  it("gives no vector to a document removed while its batch was being embedded", async () => {
    let index: SearchIndex | undefined;
    // Removes document 2 while the batch holding it is with the embedder (as another writer may).
    const embedder: Embedder = {
      id: "removing-test",
      dimensions: 3,
      async embed(texts: string[]) {
        index?.remove("memory", 2);
        return texts.map(() => Float32Array.from([1, 0, 0]));
      },
    };
    index = new SearchIndex(database, { embedder });
    index.upsertMany(
      [1, 2, 3].map((id) => ({ namespace: "memory" as const, id, scope: "owner", text: `note ${id}` })),
    );
    expect(await index.embedPending({ batchSize: 10 })).toBe(3);
    // Two documents' vectors, in each table of the store (binary: codes and float vectors).
    const tables = database.prepare("SELECT COUNT(*) FROM search_vector_tables").pluck().get();
    expect(vectorCount()).toBe(2 * Number(tables));
    expect(index.pendingEmbeddings()).toBe(0);
    const found = await index.nearestVectors("note", { namespace: "memory", scopes: ["owner"] }, 10);
    expect(found.map((hit) => hit.id).sort()).toEqual([1, 3]);
  });

  it("finds by meaning through vectors what BM25 cannot, and reports both ranks", async () => {
    const index = new SearchIndex(database, { embedder: new SynonymEmbedder() });
    index.upsertMany([
      { namespace: "memory", id: 1, scope: "owner", text: "user drives an old automobile" },
      { namespace: "memory", id: 2, scope: "owner", text: "user has a kitten" },
    ]);
    expect(index.pendingEmbeddings()).toBe(2);
    expect(await index.embedPending()).toBe(2);
    expect(index.pendingEmbeddings()).toBe(0);
    const hits = await index.search("car", { namespace: "memory", scopes: ["owner"] });
    expect(hits[0]?.id).toBe(1);
    expect(hits[0]?.lexicalRank).toBeNull();
    expect(hits[0]?.vectorRank).toBe(1);
    const both = await index.search("kitten", { namespace: "memory", scopes: ["owner"] });
    expect(both[0]).toMatchObject({ id: 2, lexicalRank: 1, vectorRank: 1 });
    expect(both[0]?.relevance).toBeCloseTo(1);
  });

  it("keeps vectors of other scopes out of the results", async () => {
    const index = new SearchIndex(database, { embedder: new SynonymEmbedder() });
    index.upsert({ namespace: "memory", id: 1, scope: "telegram:9", text: "member's automobile" });
    index.upsert({ namespace: "memory", id: 2, scope: "owner", text: "owner's kitten" });
    await index.embedPending();
    const hits = await index.search("vehicle", { namespace: "memory", scopes: ["owner"] });
    expect(hits.map((hit) => hit.id)).not.toContain(1);
  });

  it("removes a document's vector with it, and re-embeds changed text", async () => {
    const index = new SearchIndex(database, { embedder: new HashEmbedder(32) });
    index.upsert({ namespace: "memory", id: 1, scope: "owner", text: "first text" });
    await index.embedPending();
    // The default store (binary) holds a document's code and its float vector for rescoring.
    expect(vectorCount()).toBe(2);
    index.upsert({ namespace: "memory", id: 1, scope: "owner", text: "changed text" });
    expect(index.pendingEmbeddings()).toBe(1);
    await index.embedPending();
    index.remove("memory", 1);
    expect(vectorCount()).toBe(0);
  });

  it("re-embeds with a new model instead of comparing vectors of different models", async () => {
    new SearchIndex(database, { embedder: new HashEmbedder(16) }).upsert({
      namespace: "memory",
      id: 1,
      scope: "owner",
      text: "hello world",
    });
    await new SearchIndex(database, { embedder: new HashEmbedder(16) }).embedPending();
    const other = new SearchIndex(database, { embedder: new HashEmbedder(32) });
    expect(other.pendingEmbeddings()).toBe(1);
    expect(await other.embedPending()).toBe(1);
  });

  it("embeds through the OpenAI-compatible HTTP embedder", async () => {
    server = await startEmbeddingsServer({ dimensions: 384 });
    const embedder = new OpenAICompatibleEmbedder({
      baseUrl: server.baseUrl,
      model: "all-minilm",
      dimensions: 384,
    });
    const index = new SearchIndex(database, { embedder });
    index.upsertMany([
      { namespace: "memory", id: 1, scope: "owner", text: "user's sister lives in Porto" },
      { namespace: "memory", id: 2, scope: "owner", text: "user prefers green tea" },
    ]);
    expect(await index.embedPending({ batchSize: 1 })).toBe(2);
    expect(server.requests.length).toBe(2);
    const hits = await index.search("green tea", { namespace: "memory", scopes: ["owner"] });
    expect(hits[0]).toMatchObject({ id: 2, vectorRank: 1 });
  });

  it("surfaces an embedder failure instead of silently falling back", async () => {
    server = await startEmbeddingsServer({ failWith: { status: 503, body: "model loading" } });
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: "m", dimensions: 384 });
    const index = new SearchIndex(database, { embedder });
    index.upsert({ namespace: "memory", id: 1, scope: "owner", text: "anything" });
    await expect(index.embedPending()).rejects.toThrow(/HTTP 503.*model loading/);
    expect(index.pendingEmbeddings()).toBe(1);
    await expect(index.search("anything", { namespace: "memory", scopes: ["owner"] })).rejects.toBeInstanceOf(
      EmbeddingError,
    );
  });

  it("rejects vectors of the wrong size from an embedder", async () => {
    const liar: Embedder = {
      id: "liar",
      dimensions: 4,
      embed: async (texts) => texts.map(() => new Float32Array(3)),
    };
    const index = new SearchIndex(database, { embedder: liar });
    index.upsert({ namespace: "memory", id: 1, scope: "owner", text: "x y z" });
    await expect(index.embedPending()).rejects.toThrow(/3-dimension vector, expected 4/);
  });

  for (const quantization of ["float", "int8", "binary"] as const) {
    it(`finds the nearest vector among many like an exact scan does (${quantization}, rescored)`, async () => {
      const embedder = new HashEmbedder(64);
      const index = new SearchIndex(database, { embedder, feedback: false, quantization });
      const texts = Array.from(
        { length: 5_000 },
        (_, i) => `fact ${i} about topic${i % 997} and item${i % 101}`,
      );
      index.upsertMany(texts.map((text, i) => ({ namespace: "memory", id: i + 1, scope: "owner", text })));
      await index.embedPending({ batchSize: 1000 });
      const hits = await index.search("topic5 item5", { namespace: "memory", scopes: ["owner"], pool: 10 });
      const byVector = hits
        .filter((hit) => hit.vectorRank !== null)
        .sort((a, b) => (a.vectorRank ?? 0) - (b.vectorRank ?? 0));
      // Exact cosine ranking over all documents, computed here.
      const query = embedder.embedOne("topic5 item5");
      const exact = texts
        .map((text, i) => {
          const v = embedder.embedOne(text);
          let dot = 0;
          for (let d = 0; d < v.length; d++) dot += (v[d] ?? 0) * (query[d] ?? 0);
          return { id: i + 1, dot };
        })
        .sort((a, b) => b.dot - a.dot || a.id - b.id);
      expect(byVector[0]?.id).toBe(exact[0]?.id);
    }, 60_000);
  }
});
