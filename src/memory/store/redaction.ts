import type { SqliteDatabase } from "../../storage/database.js";
import { EpisodeRepository, FORGOTTEN } from "./episodes.js";
import type { MemoryIndex } from "./types.js";

// Defined in episodes.ts (which the memory commands load anyway); exported here too for the
// forget code that reads it as the redaction's marker.
export { FORGOTTEN };

/**
 * Shorter needles would scrub unrelated words ("yes", "Paris") out of everything. A CJK character
 * counts twice: "用户对芒果过敏" (7 characters) is a whole sentence, not a word.
 */
const MIN_NEEDLE_WEIGHT = 8;
/** Declared types whose columns hold only numbers (SQLite's INTEGER and REAL affinities). */
const NUMERIC_ONLY = /INT|REAL|FLOA|DOUB/i;

function needleWeight(form: string): number {
  return [...form].reduce(
    (weight, char) =>
      weight +
      (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(char) ? 2 : 1),
    0,
  );
}

/** Keys of a stored model message that are structure, not content: never rewritten. */
const STRUCTURAL_KEYS = new Set(["type", "role", "toolCallId", "toolName", "mediaType", "providerOptions"]);

/**
 * Tables that are scrubbed by their owners, not by substring: other memories (a longer memory may
 * contain the forgotten one's words and is not forgotten), the index (rewritten through its API),
 * and the id-only bookkeeping. The judge queue is not among them: its ids are bookkeeping, but its
 * `last_error` records a model's answer, which can quote any memory it was shown.
 */
const OWNED_TABLES = new Set([
  "memories",
  "memory_versions",
  "memory_conflicts",
  "memory_tombstones",
  "memory_redactions",
]);

export function isOwned(table: string): boolean {
  return OWNED_TABLES.has(table) || table.startsWith("search_") || table.startsWith("sqlite_");
}

function redactStrings(value: unknown, key: string | null): unknown {
  if (typeof value === "string") return key !== null && STRUCTURAL_KEYS.has(key) ? value : FORGOTTEN;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, null));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v, k)]));
  }
  return value;
}

function collectStrings(value: unknown, key: string | null, out: string[]): void {
  if (typeof value === "string") {
    if (key === null || !STRUCTURAL_KEYS.has(key)) out.push(value);
  } else if (Array.isArray(value)) for (const item of value) collectStrings(item, null, out);
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) collectStrings(v, k, out);
  }
}

/**
 * Replaces every content string of the given transcript messages with the placeholder and returns
 * the original strings (they become needles for the rest of the database: a task's input, a delivery).
 */
export function redactMessages(database: SqliteDatabase, messageIds: readonly number[]): string[] {
  const needles: string[] = [];
  const select = database.prepare("SELECT content FROM messages WHERE id = ?");
  const update = database.prepare("UPDATE messages SET content = ? WHERE id = ?");
  for (const id of messageIds) {
    const row = select.get(id) as { content: string } | undefined;
    if (!row) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.content);
    } catch {
      // A plain-text row (older format): the whole text is the content.
      needles.push(row.content);
      update.run(FORGOTTEN, id);
      continue;
    }
    collectStrings(parsed, null, needles);
    update.run(JSON.stringify(redactStrings(parsed, null)), id);
  }
  return needles.filter((needle) => needle.trim() !== "" && needle !== FORGOTTEN);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The forms a needle takes in storage: as written, and escaped inside JSON. */
function formsOf(needle: string): string[] {
  const json = JSON.stringify(needle).slice(1, -1);
  return json === needle ? [needle] : [needle, json];
}

/**
 * Removes every occurrence of the needles (case-insensitively) from every text column of every table
 * not owned by the memory store or the index: transcripts, episodes, the task ledger, outgoing
 * deliveries, queued extraction excerpts, recorded model output. Returns the rows changed per table.
 */
export function scrubEverywhere(database: SqliteDatabase, needles: readonly string[]): Map<string, number[]> {
  const forms = [...new Set(needles.flatMap((needle) => formsOf(needle.trim())))].filter(
    (form) => needleWeight(form) >= MIN_NEEDLE_WEIGHT,
  );
  const changed = new Map<string, number[]>();
  if (forms.length === 0) return changed;
  const pattern = new RegExp(
    forms
      .map(escapeRegExp)
      .sort((a, b) => b.length - a.length)
      .join("|"),
    "giu",
  );
  const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
    name: string;
  }[];
  for (const { name } of tables) {
    if (isOwned(name)) continue;
    const columns = (
      database.prepare(`PRAGMA table_info("${name}")`).all() as { name: string; type: string }[]
    )
      // Any column that may hold text, not only those declared TEXT: SQLite keeps a string in an
      // untyped, JSON, VARCHAR or BLOB column as it was written. Only integer and real columns cannot.
      .filter((column) => !NUMERIC_ONLY.test(column.type))
      .map((column) => column.name);
    for (const column of columns) {
      const likes = forms.map(() => `"${column}" LIKE ? ESCAPE '\\'`).join(" OR ");
      const rows = database
        .prepare(`SELECT rowid AS rowid, "${column}" AS value FROM "${name}" WHERE ${likes}`)
        .all(...forms.map((form) => `%${form.replace(/[\\%_]/g, "\\$&")}%`)) as {
        rowid: number;
        value: unknown;
      }[];
      const update = database.prepare(`UPDATE "${name}" SET "${column}" = ? WHERE rowid = ?`);
      for (const row of rows) {
        // A blob LIKE matched holds the text as bytes; it is not a string to rewrite here.
        if (typeof row.value !== "string") continue;
        pattern.lastIndex = 0;
        const scrubbed = row.value.replace(pattern, FORGOTTEN);
        if (scrubbed === row.value) continue;
        update.run(scrubbed, row.rowid);
        changed.set(name, [...(changed.get(name) ?? []), row.rowid]);
      }
    }
  }
  return changed;
}

/**
 * Re-indexes episodes whose text was scrubbed, so the index holds no copy of the old words: the
 * scrubbed turns and the turns around them, whose context held their text (search/turn-context.ts).
 * All are removed first in one rewrite of the FTS5 index (removeMany compacts), then indexed again
 * from the scrubbed table.
 */
export function reindexEpisodes(
  database: SqliteDatabase,
  index: MemoryIndex,
  episodeIds: readonly number[],
): void {
  const episodes = new EpisodeRepository(database);
  const ids = [...new Set([...episodeIds, ...episodes.neighbourIds(episodeIds)])];
  index.removeMany("episode", ids);
  for (const episode of episodes.getMany(ids).values()) {
    if (episode.text.replaceAll(FORGOTTEN, "").trim() !== "") index.upsert(episodes.document(episode));
  }
}

export function recordRedactions(
  database: SqliteDatabase,
  table: "messages" | "episodes",
  rowIds: readonly number[],
  memoryId: number,
  at: string,
): void {
  const insert = database.prepare(
    "INSERT OR IGNORE INTO memory_redactions (table_name, row_id, memory_id, redacted_at) VALUES (?, ?, ?, ?)",
  );
  for (const id of rowIds) insert.run(table, id, memoryId, at);
}

/**
 * Applies this database's forgets to another copy of it (a backup being restored): the tombstoned
 * memories are deleted with their versions and index entries, and the messages and episodes a forget
 * redacted are redacted there too — by id, since the tombstones keep no text. Returns what changed.
 */
export function applyTombstones(
  source: SqliteDatabase,
  target: SqliteDatabase,
  targetIndex: MemoryIndex,
): { memories: number; messages: number; episodes: number } {
  const tombstones = source
    .prepare("SELECT memory_id, user_key, deleted_at FROM memory_tombstones")
    .all() as {
    memory_id: number;
    user_key: string;
    deleted_at: string;
  }[];
  const redactions = source
    .prepare("SELECT table_name, row_id, memory_id, redacted_at FROM memory_redactions")
    .all() as {
    table_name: "messages" | "episodes";
    row_id: number;
    memory_id: number;
    redacted_at: string;
  }[];
  const result = { memories: 0, messages: 0, episodes: 0 };
  target.transaction(() => {
    for (const tombstone of tombstones) {
      const exists = target.prepare("SELECT 1 FROM memories WHERE id = ?").get(tombstone.memory_id);
      targetIndex.remove("memory", tombstone.memory_id);
      if (exists) {
        target.prepare("DELETE FROM memories WHERE id = ?").run(tombstone.memory_id);
        result.memories++;
      }
      target
        .prepare(
          "INSERT OR REPLACE INTO memory_tombstones (memory_id, user_key, deleted_at) VALUES (?, ?, ?)",
        )
        .run(tombstone.memory_id, tombstone.user_key, tombstone.deleted_at);
    }
    const messageIds = redactions.filter((row) => row.table_name === "messages").map((row) => row.row_id);
    const needles = redactMessages(target, messageIds);
    result.messages = messageIds.length;
    const episodeIds = redactions.filter((row) => row.table_name === "episodes").map((row) => row.row_id);
    const episodeTexts = episodeIds.flatMap((id) => {
      const row = target.prepare("SELECT text FROM episodes WHERE id = ?").get(id) as
        | { text: string }
        | undefined;
      return row ? [row.text] : [];
    });
    target
      .prepare(`UPDATE episodes SET text = ? WHERE id IN (SELECT value FROM json_each(?))`)
      .run(FORGOTTEN, JSON.stringify(episodeIds));
    result.episodes = episodeIds.length;
    scrubEverywhere(target, [...needles, ...episodeTexts]);
    reindexEpisodes(target, targetIndex, episodeIds);
    for (const row of redactions) {
      recordRedactions(target, row.table_name, [row.row_id], row.memory_id, row.redacted_at);
    }
  })();
  return result;
}
