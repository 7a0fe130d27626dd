import type { SqliteDatabase } from "../storage/database.js";
import { isStopword } from "./text/index.js";

/**
 * A forgotten fact is repeated in words the exact-text scrub cannot see: a tool result that printed
 * it in capitals ("LOCKER CODE WORD:   ZebraQuartz"), a reply, a turn that said only the value
 * ("ZEBRAQUARTZ as well"), a tool argument. Its *distinctive words* — content words of the memory,
 * its versions and quote that no remaining memory holds — are erased as words (the text around them
 * stays) from:
 *   1. every row of the conversations the fact came from (its source sessions), and
 *   2. anywhere else, from a sentence, line or JSON string that holds two of them (or the only one):
 *      "your locker code word is zebraquartz" goes, "I loved Paris" does not.
 * A word that another memory holds is not distinctive: that memory keeps its words and its sources.
 */

/** Words that name the person the memory is about, not the fact: never distinctive. */
const META_WORDS = new Set(["user", "users", "user's", "用户", "用戶", "the", "owner"]);

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Content words of a text: Latin words of 3+ letters that are not stopwords, CJK words of 2+ characters. */
export function contentWords(text: string): string[] {
  const words: string[] = [];
  const segmenter = new Intl.Segmenter("zh", { granularity: "word" });
  for (const part of segmenter.segment(text.normalize("NFKC"))) {
    if (!part.isWordLike) continue;
    const word = part.segment.toLowerCase();
    if (META_WORDS.has(word)) continue;
    if (CJK.test(word)) {
      if ([...word].length >= 2) words.push(word);
    } else if ([...word].length >= 3 && !isStopword(word) && !/^\d{1,2}$/.test(word)) words.push(word);
  }
  return [...new Set(words)];
}

/** The forgotten fact's distinctive words: in its texts and in no remaining memory of anyone. */
export function distinctiveWords(
  database: SqliteDatabase,
  texts: readonly string[],
  memoryId: number,
): string[] {
  const candidates = [...new Set(texts.flatMap(contentWords))];
  const held = database.prepare(
    "SELECT 1 FROM memories WHERE id != ? AND lower(text) LIKE ? ESCAPE '\\' LIMIT 1",
  );
  return candidates.filter((word) => !held.get(memoryId, `%${likeEscape(word)}%`));
}

function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The word as stored inside JSON written with \uXXXX escapes. */
function unicodeEscaped(word: string): string {
  return [...word]
    .map((char) => {
      const code = char.codePointAt(0) ?? 0;
      if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
      const high = Math.floor((code - 0x10000) / 0x400) + 0xd800;
      const low = ((code - 0x10000) % 0x400) + 0xdc00;
      return `\\u${high.toString(16)}\\u${low.toString(16)}`;
    })
    .join("");
}

/** Words after which a fact's value follows: "… is zebraquartz", "… allergic to penicillin". */
const BEFORE_VALUE = new Set(
  "is are was were am be been to in at of for from on with by as called named".split(" "),
);

/**
 * The fact's value among its distinctive words: a code or number ("tulip42"), a name (a capitalised
 * word past the first), any CJK word, and the content words after the last "is/to/in/at/…" — what the
 * fact says, not what it is about. In the fact's own conversations only these are erased wherever they
 * stand ("ZEBRAQUARTZ as well"); the others ("locker", "code") only where they come together with
 * another of the fact's words, so "can you write code for my website?" in the same chat stays. With no
 * value found, every distinctive word counts as one (the safe side).
 */
export function valueWords(factTexts: readonly string[], words: readonly string[]): string[] {
  const distinctive = new Set(words);
  const values = new Set<string>();
  const segmenter = new Intl.Segmenter("zh", { granularity: "word" });
  for (const text of factTexts) {
    const parts = [...segmenter.segment(text.normalize("NFKC"))].filter((part) => part.isWordLike);
    const lastSeparator = parts.reduce(
      (last, part, index) => (BEFORE_VALUE.has(part.segment.toLowerCase()) ? index : last),
      -1,
    );
    parts.forEach((part, index) => {
      const word = part.segment.toLowerCase();
      if (!distinctive.has(word)) return;
      const valueLike =
        /\p{N}/u.test(word) ||
        CJK.test(word) ||
        (index > 0 && /^\p{Lu}/u.test(part.segment)) ||
        (lastSeparator >= 0 && index > lastSeparator);
      if (valueLike) values.add(word);
    });
  }
  return values.size > 0 ? [...values] : [...words];
}

export interface WordScrubber {
  /**
   * Rule 1, in the fact's own conversations: its value words anywhere, its other distinctive words
   * where two of the fact's words come together (as rule 2).
   */
  all(text: string): string;
  /** Rule 2: the words, only in sentences, lines or JSON strings that hold two of the fact's words. */
  together(text: string): string;
  /** SQL LIKE patterns that find a candidate row. */
  likes: string[];
}

function wordPattern(words: readonly string[]): RegExp {
  const alternatives = words
    .flatMap((word) => {
      const escaped = escapeRegExp(unicodeEscaped(word));
      // Latin words stand between non-letters; CJK words have no spaces around them.
      const plain = CJK.test(word)
        ? escapeRegExp(word)
        : `(?<![\\p{L}\\p{N}])${escapeRegExp(word)}(?![\\p{L}\\p{N}])`;
      return [plain, escaped];
    })
    .sort((a, b) => b.length - a.length);
  return new RegExp(alternatives.join("|"), "giu");
}

/**
 * `words` are erased; `context` (all the fact's content words, the distinctive ones included) says
 * where, outside the source conversations: a segment holding two of them, or the only one there is.
 * "Paris" alone in another conversation stays when the fact was "lives in Paris".
 */
export function wordScrubber(
  words: readonly string[],
  placeholder: string,
  context: readonly string[] = words,
  values: readonly string[] = words,
): WordScrubber | undefined {
  if (words.length === 0) return undefined;
  const pattern = wordPattern(words);
  const valuePattern = wordPattern(values.length > 0 ? values : words);
  const all = [...new Set([...words, ...context])];
  const contextPattern = wordPattern(all);
  const needed = Math.min(2, all.length);
  const wordOf = (match: string) => JSON.parse(`"${match.replace(/"/g, "")}"`).toLowerCase() as string;
  const together = (text: string) =>
    text.replace(/[^.!?。！？\n"]+/gu, (segment) => {
      if (!pattern.test(segment)) return segment;
      pattern.lastIndex = 0;
      const found = new Set((segment.match(contextPattern) ?? []).map(wordOf));
      return found.size >= needed ? segment.replace(pattern, placeholder) : segment;
    });
  return {
    all: (text) => together(text).replace(valuePattern, placeholder),
    together,
    likes: words.flatMap((word) => [`%${likeEscape(word)}%`, `%${likeEscape(unicodeEscaped(word))}%`]),
  };
}

/**
 * Applies the word scrub to every text column of every table the memory store does not own:
 * rule 1 in rows that name a source session or one of its tasks in another column, rule 2 elsewhere. Returns the rows
 * changed per table.
 */
export function scrubWords(
  database: SqliteDatabase,
  scrubber: WordScrubber,
  sessionIds: readonly string[],
  isOwned: (table: string) => boolean,
): Map<string, number[]> {
  const changed = new Map<string, number[]>();
  const sessions = new Set(sessionIds);
  // The tasks of those conversations: rows keyed by task (deliveries, evidence, scheduled runs) belong too.
  const tasks = new Set(
    (
      database
        .prepare("SELECT id FROM tasks WHERE session_id IN (SELECT value FROM json_each(?))")
        .all(JSON.stringify(sessionIds)) as { id: string }[]
    ).map((row) => row.id),
  );
  const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
    name: string;
  }[];
  for (const { name } of tables) {
    if (isOwned(name)) continue;
    const info = database.prepare(`PRAGMA table_info("${name}")`).all() as { name: string; type: string }[];
    const columns = info
      .filter((column) => column.type.toUpperCase() === "TEXT")
      .map((column) => column.name);
    const keys = [...sessions, ...tasks];
    for (const column of columns) {
      const likes = scrubber.likes.map(() => `"${column}" LIKE ? ESCAPE '\\'`).join(" OR ");
      const rows = database
        .prepare(`SELECT rowid AS rowid_, * FROM "${name}" WHERE ${likes}`)
        .all(...scrubber.likes) as Record<string, unknown>[];
      const update = database.prepare(`UPDATE "${name}" SET "${column}" = ? WHERE rowid = ?`);
      for (const row of rows) {
        const value = row[column];
        if (typeof value !== "string") continue;
        // A row that names one of the fact's conversations or tasks in another column belongs to them:
        // its session_id or task_id, a job's "created_by: chat (owner, task …)".
        const inSource = Object.entries(row).some(
          ([key, cell]) =>
            key !== column && typeof cell === "string" && keys.some((id) => cell === id || cell.includes(id)),
        );
        const scrubbed = inSource ? scrubber.all(value) : scrubber.together(value);
        if (scrubbed === value) continue;
        const rowid = Number(row.rowid_);
        update.run(scrubbed, rowid);
        changed.set(name, [...(changed.get(name) ?? []), rowid]);
      }
    }
  }
  return changed;
}
