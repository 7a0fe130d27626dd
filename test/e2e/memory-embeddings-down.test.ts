import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { startEmbeddingsServer } from "../fakes/embeddings-server.js";
import { makeHome, runCli } from "../helpers/cli.js";

/** Port 9 (discard) on loopback: nothing listens, every embedding request is refused. */
const DOWN = {
  MERCURY_EMBEDDINGS_PROVIDER: "openai-compatible",
  MERCURY_EMBEDDINGS_BASE_URL: "http://127.0.0.1:9/v1",
  MERCURY_EMBEDDINGS_MODEL: "e",
  MERCURY_EMBEDDINGS_DIMENSIONS: "8",
};

describe("memory commands with the embedding server down", () => {
  it("add and search fall back to word search with a visible notice, and C++/C#/emoji are found", {
    timeout: 120_000,
  }, async () => {
    const { home, userHome } = makeHome();
    const run = (...args: string[]) => runCli(["memory", ...args], { home, userHome, env: DOWN });
    for (const text of ["I write C++ at work", "I script in C# at home", "🍣"]) {
      const added = await run("add", text);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stderr).toMatch(
        /notice: embeddings unavailable .*(word search only|stored without a vector)/,
      );
      expect(added.stderr).not.toContain("Please report this");
    }
    const cpp = await run("search", "--json", "C++");
    expect(cpp.code).toBe(0);
    expect(cpp.stderr).toContain("notice: embeddings unavailable");
    expect(JSON.parse(cpp.stdout).results.map((r: { text: string }) => r.text)).toEqual([
      "I write C++ at work",
    ]);
    const sharp = await run("search", "--json", "c#");
    expect(JSON.parse(sharp.stdout).results.map((r: { text: string }) => r.text)).toEqual([
      "I script in C# at home",
    ]);
    const emoji = await run("search", "--json", "🍣");
    expect(JSON.parse(emoji.stdout).results.map((r: { text: string }) => r.text)).toEqual(["🍣"]);
  });
});

describe("memory add with the embedding server up", () => {
  it("stores the new memory's vector", { timeout: 60_000 }, async () => {
    const server = await startEmbeddingsServer({ dimensions: 8 });
    try {
      const { home, userHome } = makeHome();
      const env = { ...DOWN, MERCURY_EMBEDDINGS_BASE_URL: server.baseUrl };
      const added = await runCli(["memory", "add", "I am allergic to penicillin"], { home, userHome, env });
      expect(added.code, added.stderr).toBe(0);
      expect(added.stderr).not.toContain("notice");
      const database = new Database(join(home, "mercury.db"), { readonly: true });
      try {
        // The default store (binary): codes and float vectors in plain tables, readable without the extension.
        const tables = database.prepare("SELECT name FROM search_vector_tables").pluck().all() as string[];
        expect([...tables].sort()).toEqual(["search_vec_full_8", "search_vec_simhash_8"]);
        for (const table of tables) {
          const rows = database
            .prepare(
              `SELECT COUNT(*) AS n FROM ${table} v JOIN search_docs d ON d.id = v.id WHERE d.vector_model IS NOT NULL`,
            )
            .get() as { n: number };
          expect(rows.n, table).toBe(1);
        }
      } finally {
        database.close();
      }
    } finally {
      await server.close();
    }
  });
});
