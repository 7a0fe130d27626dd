import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { embeddingsConfigured, loadEmbeddings } from "../../src/app/memory-wiring.js";
import { ConfigError } from "../../src/config/errors.js";
import { HashEmbedder } from "../../src/memory/search/hash-embedder.js";
import { SearchIndexCore } from "../../src/memory/search/search-index-core.js";
import { openDatabase } from "../../src/storage/database.js";

let directory: string | undefined;
afterEach(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

function database() {
  directory = mkdtempSync(join(tmpdir(), "mercury-wiring-"));
  return openDatabase(join(directory, "mercury.db"));
}

describe("embeddings resolved before the memory service is built", () => {
  it("unset or none: no embeddings, nothing loaded", async () => {
    expect(embeddingsConfigured({})).toBe(false);
    expect(embeddingsConfigured({ MERCURY_EMBEDDINGS_PROVIDER: " None " })).toBe(false);
    await expect(loadEmbeddings({ env: {} })).resolves.toBeUndefined();
    await expect(loadEmbeddings({ env: { MERCURY_EMBEDDINGS_PROVIDER: "none" } })).resolves.toBeUndefined();
  });

  it("a configured embedder comes with an index that stores its vectors", async () => {
    const db = database();
    try {
      const embeddings = await loadEmbeddings({ env: { MERCURY_EMBEDDINGS_PROVIDER: "hash" } });
      expect(embeddings?.embedder.id).toBe("hash-384");
      const index = embeddings?.index(db);
      index?.upsert({ namespace: "memory", id: 1, scope: "owner", text: "The user drinks green tea." });
      expect(await index?.embedPending({ max: 10 })).toBe(1);
      const hits = await index?.search("green tea", { namespace: "memory", scopes: ["owner"] });
      expect(hits?.map((hit) => hit.id)).toEqual([1]);
    } finally {
      db.close();
    }
  });

  it("a setting the embedder cannot work with is a ConfigError saying what to set", async () => {
    const failure = loadEmbeddings({ env: { MERCURY_EMBEDDINGS_PROVIDER: "bogus" } });
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow(/use openai, ollama, openai-compatible, hash or none/);
  });

  it("the index without vector code refuses an embedder instead of ignoring it", () => {
    const db = database();
    try {
      expect(() => new SearchIndexCore(db, { embedder: new HashEmbedder(16) })).toThrow(
        /build it with SearchIndex/,
      );
      const words = new SearchIndexCore(db);
      words.upsert({ namespace: "memory", id: 1, scope: "owner", text: "The user drinks green tea." });
      expect(words.pendingEmbeddings()).toBe(0);
    } finally {
      db.close();
    }
  });
});
