import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROLE_FIELD } from "../../src/memory/search/bm25.js";
import { SearchIndex } from "../../src/memory/search/search-index.js";
import type { SearchNamespace } from "../../src/memory/search/types.js";
import { MemoryService } from "../../src/memory/service.js";
import { reindexEpisodesIfMigrated } from "../../src/memory/store/episode-reindex.js";
import { FORGOTTEN } from "../../src/memory/store/redaction.js";
import type { MemoryIndex } from "../../src/memory/store/types.js";
import { openDatabase, type SqliteDatabase, schemaVersion } from "../../src/storage/database.js";
import { makeHome, runCli } from "../helpers/cli.js";

// mercury-v11.db was written by the schema-11 build (episodes indexed without role or context) with
// make.mjs beside it, which also forgot a memory (scrubbing two turns) and recorded the top result
// of each query on that build in expected.json.
const fixture = join(import.meta.dirname, "../fixtures/episodes-v11");
const expected = JSON.parse(readFileSync(join(fixture, "expected.json"), "utf8")) as {
  counts: { memories: number; episodes: number; memoryDocs: number; episodeDocs: number };
  queries: { namespace: SearchNamespace; scope: string; query: string; top: number | null; found: number }[];
};

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function copyOfFixture(): string {
  const home = mkdtempSync(join(tmpdir(), "mercury-migration-012-"));
  homes.push(home);
  const path = join(home, "mercury.db");
  copyFileSync(join(fixture, "mercury-v11.db"), path);
  return path;
}

function docs(database: SqliteDatabase, namespace: SearchNamespace): Map<number, string> {
  const rows = database
    .prepare("SELECT doc_id, terms FROM search_docs WHERE namespace = ? ORDER BY doc_id")
    .all(namespace) as { doc_id: number; terms: string }[];
  return new Map(rows.map((row) => [row.doc_id, row.terms]));
}

function flag(database: SqliteDatabase): unknown {
  return database.prepare("SELECT value FROM search_state WHERE key = 'episode_reindex'").pluck().get();
}

describe("migration 012 (episodes re-indexed with role and context)", () => {
  it("keeps every memory and episode, gives the turns today's document, and the same top memories", async () => {
    const path = copyOfFixture();
    const database = openDatabase(path);
    try {
      expect(schemaVersion(database)).toBe(12);
      expect(flag(database)).toBe("1");
      const memoriesBefore = docs(database, "memory");
      const episodesBefore = docs(database, "episode");
      expect(memoriesBefore.size).toBe(expected.counts.memoryDocs);
      expect(episodesBefore.size).toBe(expected.counts.episodeDocs);
      // The old build's turns had no role term.
      expect([...episodesBefore.values()].some((terms) => terms.includes(ROLE_FIELD))).toBe(false);

      const index = new SearchIndex(database);
      const service = new MemoryService({ database, index });
      expect(flag(database)).toBeUndefined();

      const count = (sql: string) => Number(database.prepare(sql).pluck().get());
      expect(count("SELECT COUNT(*) FROM memories")).toBe(expected.counts.memories);
      expect(count("SELECT COUNT(*) FROM episodes")).toBe(expected.counts.episodes);
      // Memories are untouched; the same turns are indexed, none added or lost.
      expect(docs(database, "memory")).toEqual(memoriesBefore);
      const episodesAfter = docs(database, "episode");
      expect([...episodesAfter.keys()]).toEqual([...episodesBefore.keys()]);

      // Each turn's document is the one the live writer builds today (re-writing it changes nothing),
      // with its role, and a context the old one lacked.
      const turns = service.episodes.getMany([...episodesAfter.keys()]);
      let withContext = 0;
      for (const [id, terms] of episodesAfter) {
        const turn = turns.get(id);
        if (turn === undefined) throw new Error(`episode ${id} is indexed but not stored`);
        const document = service.episodes.document(turn);
        index.upsert(document);
        expect(docs(database, "episode").get(id), `episode ${id}`).toBe(terms);
        expect(terms).toContain(`${ROLE_FIELD}${turn.role}`);
        if ((document.context?.length ?? 0) > 0) {
          withContext++;
          expect(terms, `episode ${id}`).not.toBe(episodesBefore.get(id));
        }
      }
      expect(withContext).toBe(episodesAfter.size);

      // Every memory and every indexed turn is found by its own words.
      for (const row of database.prepare("SELECT id, user_key, text FROM memories").all() as {
        id: number;
        user_key: string;
        text: string;
      }[]) {
        const hits = await index.search(row.text, { namespace: "memory", scopes: [row.user_key] });
        expect(
          hits.map((hit) => hit.id),
          row.text,
        ).toContain(row.id);
      }
      for (const turn of turns.values()) {
        const hits = await index.search(turn.text, { namespace: "episode", scopes: [turn.userKey] });
        expect(
          hits.map((hit) => hit.id),
          turn.text,
        ).toContain(turn.id);
      }

      // The fixed queries: the same top memory as the old build; each former top turn still found.
      expect(expected.queries.filter((query) => query.top !== null).length).toBeGreaterThan(10);
      for (const query of expected.queries) {
        const hits = await index.search(query.query, { namespace: query.namespace, scopes: [query.scope] });
        if (query.namespace === "memory") expect(hits[0]?.id ?? null, query.query).toBe(query.top);
        else if (query.top !== null)
          expect(
            hits.map((hit) => hit.id),
            query.query,
          ).toContain(query.top);
      }
    } finally {
      database.close();
    }
  });

  it("lets no forgotten word back in: the scrubbed turn stays out, its neighbours' context has no marker", async () => {
    const path = copyOfFixture();
    const database = openDatabase(path);
    try {
      const index = new SearchIndex(database);
      new MemoryService({ database, index });
      const scrubbed = database
        .prepare("SELECT id FROM episodes WHERE text = ?")
        .pluck()
        .all(FORGOTTEN) as number[];
      expect(scrubbed).toHaveLength(1);
      expect(docs(database, "episode").has(scrubbed[0] as number)).toBe(false);
      const partly = database
        .prepare("SELECT text FROM episodes WHERE text LIKE ? AND text <> ?")
        .pluck()
        .all(`%${FORGOTTEN}%`, FORGOTTEN) as string[];
      expect(partly).toHaveLength(1);
      // The partly scrubbed turn keeps its marker in its own text (as the old build indexed it);
      // its neighbours' context drops it.
      const marked = database
        .prepare("SELECT doc_id FROM search_docs WHERE namespace = 'episode' AND terms LIKE '%forgotten%'")
        .pluck()
        .all() as number[];
      const ownMarker = database
        .prepare("SELECT id FROM episodes WHERE text LIKE ?")
        .pluck()
        .all(`%${FORGOTTEN}%`) as number[];
      expect(marked.length).toBeGreaterThan(0);
      expect(marked.every((id) => ownMarker.includes(id))).toBe(true);
      for (const word of ["4417", "locker"]) {
        const stored = database
          .prepare("SELECT COUNT(*) FROM search_docs WHERE text LIKE ? OR terms LIKE ?")
          .pluck()
          .get(`%${word}%`, `%${word}%`);
        expect(Number(stored), word).toBe(0);
        const fts = database
          .prepare("SELECT rowid FROM search_fts WHERE search_fts MATCH ?")
          .all(`"${word}"`);
        expect(fts, word).toEqual([]);
        expect(await index.search(word, { namespace: "episode", scopes: ["owner"] }), word).toEqual([]);
      }
      const secureDelete = database
        .prepare("SELECT v FROM search_fts_config WHERE k = 'secure-delete'")
        .pluck()
        .get();
      expect(Number(secureDelete)).toBe(1);
    } finally {
      database.close();
    }
  });

  it("rolls back when interrupted: the old documents and the flag stay, and the next start finishes", () => {
    const path = copyOfFixture();
    const database = openDatabase(path);
    try {
      const before = docs(database, "episode");
      const index = new SearchIndex(database);
      let upserts = 0;
      const failing: MemoryIndex = {
        upsert: (doc) => {
          if (++upserts === 5) throw new Error("disk full (injected)");
          index.upsert(doc);
        },
        remove: (namespace, id) => index.remove(namespace, id),
        removeMany: (namespace, ids) => index.removeMany(namespace, ids),
        search: (query, options) => index.search(query, options),
      };
      expect(() => reindexEpisodesIfMigrated(database, failing)).toThrow(/disk full/);
      expect(upserts).toBe(5);
      expect(flag(database)).toBe("1");
      expect(docs(database, "episode")).toEqual(before);

      expect(reindexEpisodesIfMigrated(database, index)).toBe(expected.counts.episodeDocs);
      expect(flag(database)).toBeUndefined();
      // Done once: the next start reads the flag and does nothing.
      expect(reindexEpisodesIfMigrated(database, index)).toBeUndefined();
    } finally {
      database.close();
    }
  });

  it("has nothing to do on a new database", () => {
    const database = openDatabase(":memory:");
    try {
      expect(schemaVersion(database)).toBe(12);
      expect(flag(database)).toBeUndefined();
      expect(reindexEpisodesIfMigrated(database, new SearchIndex(database))).toBeUndefined();
    } finally {
      database.close();
    }
  });

  it("upgrades through the built binary: `memory list` and `status` work on the old database", {
    timeout: 60_000,
  }, async () => {
    const { home, userHome } = makeHome();
    copyFileSync(join(fixture, "mercury-v11.db"), join(home, "mercury.db"));
    const listed = await runCli(["memory", "list"], { home, userHome });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("allergic to penicillin");
    expect(listed.stdout).not.toContain("4417");
    // status exits 1 when the daemon is not running, on an old database as on a new one.
    const status = await runCli(["status"], { home, userHome });
    expect(status.stdout).toContain("mercury is not running");
    expect(status.stderr).not.toMatch(/\n\s+at |unexpected error/);
    const stats = await runCli(["memory", "stats"], { home, userHome });
    expect(stats.code, stats.stderr).toBe(0);
    const turns = await runCli(["memory", "search", "--episodes", "Edinburgh train"], { home, userHome });
    expect(turns.code, turns.stderr).toBe(0);
    expect(turns.stdout).toContain("train to Edinburgh");
    const searched = await runCli(["memory", "search", "blue car"], { home, userHome });
    expect(searched.code, searched.stderr).toBe(0);
    expect(searched.stdout).toContain("Volvo");
    const database = openDatabase(join(home, "mercury.db"));
    try {
      expect(schemaVersion(database)).toBe(12);
      expect(flag(database)).toBeUndefined();
      expect([...docs(database, "episode").values()].every((terms) => terms.includes(ROLE_FIELD))).toBe(true);
    } finally {
      database.close();
    }
  });

  it("two processes starting on the old database together both succeed and leave it re-indexed", {
    timeout: 60_000,
  }, async () => {
    const { home, userHome } = makeHome();
    copyFileSync(join(fixture, "mercury-v11.db"), join(home, "mercury.db"));
    const runs = await Promise.all([
      runCli(["memory", "search", "--episodes", "cat"], { home, userHome }),
      runCli(["memory", "list"], { home, userHome }),
    ]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const database = openDatabase(join(home, "mercury.db"));
    try {
      expect(flag(database)).toBeUndefined();
      const episodes = docs(database, "episode");
      expect(episodes.size).toBe(expected.counts.episodeDocs);
      expect([...episodes.values()].every((terms) => terms.includes(ROLE_FIELD))).toBe(true);
    } finally {
      database.close();
    }
  });
});
