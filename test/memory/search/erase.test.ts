import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HashEmbedder } from "../../../src/memory/search/hash-embedder.js";
import { SearchIndex } from "../../../src/memory/search/search-index.js";
import { openDatabase } from "../../../src/storage/database.js";

let directory: string | undefined;
afterEach(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

/** Every byte of every file in the folder (database, WAL, shared memory), as latin1 text. */
function allBytes(folder: string): string {
  return readdirSync(folder)
    .map((name) => readFileSync(join(folder, name)).toString("latin1"))
    .join("\n");
}

describe("removing a document from the FTS5 and sqlite-vec index", () => {
  for (const quantization of ["float", "binary"] as const)
    it(`leaves none of its words nor its vector in any file, even among many documents sharing the index pages (${quantization} vectors)`, async () => {
      directory = mkdtempSync(join(tmpdir(), "mercury-erase-"));
      const database = openDatabase(join(directory, "mercury.db"));
      try {
        const embedder = new HashEmbedder(16);
        const index = new SearchIndex(database, { embedder, quantization });
        index.upsertMany(
          Array.from({ length: 400 }, (_, i) => ({
            namespace: "memory" as const,
            id: i + 1,
            scope: "owner",
            text: `ordinary fact number ${i} about gardening and tea`,
          })),
        );
        index.upsert({
          namespace: "memory",
          id: 999,
          scope: "owner",
          text: "zanzibarite quokkaflux diagnosis",
        });
        await index.embedPending({ batchSize: 500 });
        expect((await index.search("zanzibarite", { namespace: "memory", scopes: ["owner"] }))[0]?.id).toBe(
          999,
        );
        const vector = Buffer.from(embedder.embedOne("zanzibarite quokkaflux diagnosis").buffer).toString(
          "latin1",
        );
        database.pragma("wal_checkpoint(TRUNCATE)");
        // Stored as raw float32 before the removal, so its absence afterwards means it was erased.
        expect(allBytes(directory)).toContain(vector);
        expect(index.remove("memory", 999)).toBe(true);
        database.pragma("wal_checkpoint(TRUNCATE)");
        const bytes = allBytes(directory);
        for (const word of ["zanzibarit", "quokkaflux", "diagnosi"]) expect(bytes, word).not.toContain(word);
        expect(bytes).not.toContain(vector);
        const after = await index.search("zanzibarite", { namespace: "memory", scopes: ["owner"] });
        expect(after.map((hit) => hit.id)).not.toContain(999);
        expect(after.every((hit) => hit.lexicalRank === null)).toBe(true);
        const vectors = database.prepare("SELECT name FROM search_vector_tables").pluck().all() as string[];
        for (const table of vectors) {
          // The removed document was the 401st indexed: internal id 401.
          const row = database.prepare(`SELECT rowid FROM ${table} WHERE rowid = ?`).get(BigInt(401));
          expect(row, table).toBeUndefined();
        }
        // The other documents are still found.
        expect((await index.search("gardening", { namespace: "memory", scopes: ["owner"] })).length).toBe(
          100,
        );
      } finally {
        database.close();
      }
    });
});
