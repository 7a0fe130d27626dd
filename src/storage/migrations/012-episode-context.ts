import type { Migration } from "./types.js";

/**
 * Episodes are re-indexed with the document shape of today's writers (store/episodes.ts
 * `episodeDocument`): the turn's role and speaker, its session, and the two turns each side as
 * context. Databases written before it keep documents without role or context, so an upgraded
 * store would rank turns differently from a new one.
 *
 * Like migration 011's FTS5 rebuild, the documents are written above the storage layer (the
 * analyzer and the document shape live in memory/), so this only records that the re-index is due
 * (`search_state.episode_reindex`); the memory store runs it on its next start, in one
 * transaction that clears the flag (store/episode-reindex.ts): a crash leaves the old documents and
 * the flag, and the next start retries. A database without episodes has nothing to re-index.
 */
export const episodeContextMigration: Migration = {
  version: 12,
  name: "episode-context",
  up(database) {
    database.exec(`
      INSERT OR REPLACE INTO search_state (key, value)
        SELECT 'episode_reindex', '1' WHERE EXISTS (SELECT 1 FROM episodes);
    `);
  },
};
