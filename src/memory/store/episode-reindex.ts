import type { SqliteDatabase } from "../../storage/database.js";
import { CONTEXT_WINDOW } from "../search/turn-context.js";
import { type Episode, episodeDocument, episodeFromRow, FORGOTTEN } from "./episodes.js";
import type { MemoryIndex } from "./types.js";

/**
 * Migration 012's code step: every indexed turn is indexed again with today's document (role,
 * speaker, session, neighbours as context), once, when the store first starts on the migrated
 * database. One transaction, taken before reading the flag (so two processes starting together do
 * it once) and clearing it at the end: a crash leaves the old documents and the flag, and the next
 * start retries.
 *
 * Only turns that had a document get one again, and only from the text as it is stored now: a turn
 * a forget scrubbed to "[forgotten]" stays out of the index, and a partly scrubbed neighbour gives
 * its context without the marker. The old documents are removed through the index (FTS5
 * secure-delete and one compaction), so none of their terms stay behind.
 *
 * Returns how many turns were re-indexed, or undefined when no re-index was due.
 */
export function reindexEpisodesIfMigrated(database: SqliteDatabase, index: MemoryIndex): number | undefined {
  const flag = database.prepare("SELECT value FROM search_state WHERE key = 'episode_reindex'").pluck();
  if (flag.get() === undefined) return undefined;
  return database
    .transaction(() => {
      if (flag.get() === undefined) return undefined;
      const indexed = database
        .prepare("SELECT doc_id FROM search_docs WHERE namespace = 'episode'")
        .pluck()
        .all() as number[];
      const wanted = new Set(indexed);
      index.removeMany("episode", indexed);
      const sessions = database.prepare("SELECT DISTINCT user_key, session_id FROM episodes").all() as {
        user_key: string;
        session_id: string;
      }[];
      const turnsOf = database.prepare(
        "SELECT * FROM episodes WHERE session_id = ? AND user_key = ? ORDER BY id",
      );
      let count = 0;
      for (const session of sessions) {
        // A session's turns are read once, in order, and each turn's neighbours are taken from the
        // list: the same turns EpisodeRepository.neighbours reads with two queries per turn.
        const turns = turnsOf.all(session.session_id, session.user_key).map(episodeFromRow);
        turns.forEach((turn, at) => {
          if (!wanted.has(turn.id) || turn.text.replaceAll(FORGOTTEN, "").trim() === "") return;
          index.upsert(episodeDocument(turn, neighboursAt(turns, at)));
          count++;
        });
      }
      database.prepare("DELETE FROM search_state WHERE key = 'episode_reindex'").run();
      return count;
    })
    .immediate();
}

function neighboursAt(turns: readonly Episode[], at: number): { before: string[]; after: string[] } {
  const before: string[] = [];
  const after: string[] = [];
  for (let distance = 1; distance <= CONTEXT_WINDOW; distance++) {
    const previous = turns[at - distance];
    if (previous !== undefined) before.push(previous.text);
    const next = turns[at + distance];
    if (next !== undefined) after.push(next.text);
  }
  return { before, after };
}
