import Database from "better-sqlite3";
import type { SqliteDatabase } from "../storage/database.js";
import { scrubWords, wordScrubber } from "./forget-words.js";
import { SearchIndex } from "./search/search-index.js";
import { MemoryRepository } from "./store/memory-repo.js";
import {
  FORGOTTEN,
  isOwned,
  recordRedactions,
  redactMessages,
  reindexEpisodes,
  scrubEverywhere,
} from "./store/redaction.js";

/** What one forget erased, applied again to another copy of the database. */
export interface ForgetRecord {
  memoryId: number;
  userKey: string;
  at: string;
  /** Transcript rows and archived turns redacted in the live database (same ids in its copies). */
  messageIds: readonly number[];
  episodeIds: readonly number[];
  /** The forgotten texts (memory, versions, quotes, source turns), scrubbed from every other table. */
  needles: readonly string[];
  /** The fact's distinctive words and its source sessions (forget-words.ts). */
  words: readonly string[];
  /** All the fact's content words: where, outside its conversations, its words are erased. */
  contextWords: readonly string[];
  /** The distinctive words that are the fact's value: erased anywhere in its conversations. */
  valueWords: readonly string[];
  sessionIds: readonly string[];
}

/**
 * Applies a forget to copies of the database kept under MERCURY_HOME (the daily backups, the file
 * kept by a restore): the memory, its versions and index entries go, the same transcript rows and
 * archived turns are redacted, the same words are scrubbed; `secure_delete` zeroes the freed pages
 * and the copy's WAL is checkpointed away. A copy that cannot be opened is reported, not skipped
 * silently: the caller shows it, and the user can delete that file.
 */
export function forgetInCopies(
  paths: readonly string[],
  record: ForgetRecord,
): { updated: string[]; failed: { path: string; reason: string }[] } {
  const updated: string[] = [];
  const failed: { path: string; reason: string }[] = [];
  for (const path of paths) {
    let copy: SqliteDatabase | undefined;
    try {
      copy = new Database(path, { fileMustExist: true });
      copy.pragma("secure_delete = ON");
      forgetInCopy(copy, record);
      if (copy.pragma("journal_mode", { simple: true }) === "wal") copy.pragma("wal_checkpoint(TRUNCATE)");
      updated.push(path);
    } catch (error) {
      failed.push({ path, reason: error instanceof Error ? error.message : String(error) });
    } finally {
      copy?.close();
    }
  }
  return { updated, failed };
}

function forgetInCopy(copy: SqliteDatabase, record: ForgetRecord): void {
  const hasMemories = copy
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memories'")
    .get();
  if (!hasMemories) return;
  const index = new SearchIndex(copy);
  const memories = new MemoryRepository(copy);
  copy.transaction(() => {
    const turnTexts = redactMessages(copy, record.messageIds);
    const episodeTexts = record.episodeIds.flatMap((id) => {
      const row = copy.prepare("SELECT text FROM episodes WHERE id = ?").get(id) as
        | { text: string }
        | undefined;
      return row ? [row.text] : [];
    });
    copy
      .prepare("UPDATE episodes SET text = ? WHERE id IN (SELECT value FROM json_each(?))")
      .run(FORGOTTEN, JSON.stringify(record.episodeIds));
    const changed = scrubEverywhere(copy, [...record.needles, ...turnTexts, ...episodeTexts]);
    const scrubber = wordScrubber(record.words, FORGOTTEN, record.contextWords, record.valueWords);
    const byWords = scrubber
      ? scrubWords(copy, scrubber, record.sessionIds, isOwned)
      : new Map<string, number[]>();
    const episodeIds = [
      ...new Set([
        ...record.episodeIds,
        ...(changed.get("episodes") ?? []),
        ...(byWords.get("episodes") ?? []),
      ]),
    ];
    index.remove("memory", record.memoryId);
    reindexEpisodes(copy, index, episodeIds);
    memories.delete(record.memoryId, record.userKey, record.at);
    recordRedactions(copy, "messages", record.messageIds, record.memoryId, record.at);
    recordRedactions(copy, "episodes", episodeIds, record.memoryId, record.at);
  })();
}
