// Migration 012's re-index (store/episode-reindex.ts): ms per 1,000 turns, against indexing the same
// turns in the old shape (text only) and in today's shape into an empty index, all in one run.
// Usage: npm run build && node scripts/bench-reindex.mjs [turns] [longmemeval|locomo]
// Reads the dev set from /work/shared/bench (or BENCH_DIR); writes only to a temporary directory.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dist = join(import.meta.dirname, "../dist");
const N = Number(process.argv[2] ?? 3000);
const set = process.argv[3] ?? "longmemeval";
const benchDir = process.env.BENCH_DIR ?? "/work/shared/bench";
const { openDatabase } = await import(join(dist, "storage/database.js"));
const { SearchIndex } = await import(join(dist, "memory/search/search-index.js"));
const { reindexEpisodesIfMigrated } = await import(join(dist, "memory/store/episode-reindex.js"));
const samples = JSON.parse(readFileSync(join(benchDir, `${set}-dev.json`), "utf8"));
const turns = [];
outer: for (const sample of samples) {
  const c = sample.conversation;
  for (const key of Object.keys(c).filter((k) => /^session_\d+$/.test(k))) {
    for (const t of c[key]) {
      turns.push({
        session: `${sample.sample_id}/${key}`,
        role: t.speaker === "User" ? "user" : "assistant",
        text: t.text,
      });
      if (turns.length >= N) break outer;
    }
  }
}
const dir = mkdtempSync(join(tmpdir(), "reindex-bench-"));
const database = openDatabase(join(dir, "mercury.db"));
const index = new SearchIndex(database);
const insert = database.prepare(
  "INSERT INTO episodes (user_key, session_id, role, text, created_at) VALUES ('owner', ?, ?, ?, ?)",
);
const docs = database.transaction(() =>
  turns.map((t, i) => {
    const id = Number(
      insert.run(t.session, t.role, t.text, new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString())
        .lastInsertRowid,
    );
    return { namespace: "episode", id, scope: "owner", text: t.text };
  }),
)();
let start = performance.now();
index.upsertMany(docs); // the old build's document: text only
const oldMs = performance.now() - start;
database.exec("INSERT INTO search_state (key, value) VALUES ('episode_reindex', '1')");
start = performance.now();
const count = reindexEpisodesIfMigrated(database, index);
const reindexMs = performance.now() - start;
// Baseline: the same turns indexed in today's shape into an empty index (what a new store pays).
const { EpisodeRepository } = await import(join(dist, "memory/store/episodes.js"));
const fresh = openDatabase(join(dir, "fresh.db"));
const freshIndex = new SearchIndex(fresh);
fresh.exec(
  "ATTACH DATABASE '" +
    join(dir, "mercury.db") +
    "' AS src; INSERT INTO main.episodes SELECT * FROM src.episodes; DETACH DATABASE src",
);
const repo = new EpisodeRepository(fresh);
const newDocs = [...repo.getMany(docs.map((d) => d.id)).values()].map((e) => repo.document(e));
start = performance.now();
freshIndex.upsertMany(newDocs);
const newShapeMs = performance.now() - start;
fresh.close();
database.close();
rmSync(dir, { recursive: true, force: true });
const per = (ms) => ((ms / count) * 1000).toFixed(0);
console.log(
  JSON.stringify({
    set,
    episodes: count,
    oldShapeIndexMsPer1000: per(oldMs),
    reindexMsPer1000: per(reindexMs),
    newShapeIndexMsPer1000: per(newShapeMs),
    ratioToNewShape: (reindexMs / newShapeMs).toFixed(2),
  }),
);
