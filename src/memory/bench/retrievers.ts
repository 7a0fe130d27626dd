import { openMemoryDatabase, type SqliteDatabase } from "../../storage/database.js";
import { CONTEXT_CAP } from "../search/bm25.js";
import { SearchIndex, type SearchIndexOptions } from "../search/search-index.js";
import { CONTEXT_DECAY, CONTEXT_WINDOW, turnContext } from "../search/turn-context.js";
import type { IndexedDocument, SpeakerRole } from "../search/types.js";
import { STOPWORDS } from "../text/analyze.js";
import { type Conversation, normalizeEvidenceId, type Session, type Turn } from "./locomo.js";

/** One retriever under test: loaded with one conversation, asked its questions, then closed. */
export interface Retriever {
  /** Evidence ids (D<s>:<t>), best first. */
  search(question: string): Promise<string[]>;
  close(): void;
}

/** How a conversation's turns become documents: what the index is given, fixed before any search. */
export interface DocumentOptions {
  /** Neighbouring turns of the same session given as low-weight context, each side (0 = none). */
  window: number;
  /** The session's date written into the turn's text, as the original bench did (else only occurredAt). */
  dateText: boolean;
  /** The index's time words from each turn's occurredAt (SearchIndexOptions.timeWords). */
  timeWords: boolean;
  /** How many terms' worth a long context is scaled down to (SearchIndexOptions.contextCap). */
  contextCap: number;
  /** A neighbour at distance d weighs contextDecay^(d - 1) of the nearest ones (1: all alike). */
  contextDecay: number;
  /** The speaker's name written before the turn's text ("Ann: ..."), as well as its speaker field (the old bench). */
  speakerText: boolean;
  /** Following turns in the context as well as preceding ones (false: only what was said before). */
  following: boolean;
  /** The speaker's name as a context-weight word as well as a field (SearchIndexOptions.speakerWords). */
  speakerWords?: boolean;
}

export const DEFAULT_DOCUMENTS: DocumentOptions = {
  window: CONTEXT_WINDOW,
  dateText: false,
  timeWords: true,
  contextCap: CONTEXT_CAP,
  contextDecay: CONTEXT_DECAY,
  // The live store's turns carry their speaker as a field only (store/episodes.ts), so the bench's do.
  speakerText: false,
  following: true,
};

/**
 * The speaker's role when the data is a chat with an assistant: LongMemEval's converted sessions
 * name their two speakers "User" and "Assistant" (shared/bench/README.md), as the live store's
 * episodes carry role "user" or "assistant". LoCoMo's speakers are two people: no role.
 */
export function roleOf(speaker: string): SpeakerRole | undefined {
  if (speaker === "User") return "user";
  if (speaker === "Assistant") return "assistant";
  return undefined;
}

export const BENCH_SCOPE = "bench";
export const BENCH_POOL = 100;

function captionOf(turn: Turn): string {
  return turn.blip_caption ? ` [shared an image: ${turn.blip_caption}]` : "";
}

/** The episodic document text of one turn: speaker, text, image caption (and the date if asked). */
export function turnText(turn: Turn, session: Session, dateText: boolean, speakerText = true): string {
  const date = dateText && session.dateTime ? ` (${session.dateTime})` : "";
  const speaker = speakerText ? `${turn.speaker}: ` : "";
  return `${speaker}${turn.text}${captionOf(turn)}${date}`;
}

/**
 * The documents of one conversation, as the live store indexes turns: the text, its speaker, the
 * session's time as the turn's occurredAt, the session's number as its session key, and (window > 0)
 * the neighbouring turns as context, one part each, weighted by distance (contextDecay).
 */
export function conversationDocuments(
  conversation: Conversation,
  options: DocumentOptions = DEFAULT_DOCUMENTS,
): { docs: IndexedDocument[]; idOf: Map<number, string> } {
  const docs: IndexedDocument[] = [];
  const idOf = new Map<number, string>();
  for (const session of conversation.sessions) {
    session.turns.forEach((turn, index) => {
      const evidenceId = normalizeEvidenceId(turn.dia_id);
      if (evidenceId === undefined) return;
      const id = docs.length + 1;
      const text = (other: Turn | undefined) => (other ? `${other.text}${captionOf(other)}` : "");
      const before = Array.from({ length: options.window }, (_, distance) =>
        text(session.turns[index - distance - 1]),
      );
      const after = options.following
        ? Array.from({ length: options.window }, (_, distance) => text(session.turns[index + distance + 1]))
        : [];
      const neighbours = turnContext(before, after, options.window, options.contextDecay);
      const doc: IndexedDocument = {
        namespace: "episode",
        id,
        scope: BENCH_SCOPE,
        text: turnText(turn, session, options.dateText, options.speakerText),
        speaker: turn.speaker,
      };
      const role = roleOf(turn.speaker);
      if (role !== undefined) doc.role = role;
      // The live store's session id plays this part for recorded turns.
      doc.session = String(session.index);
      if (session.occurredAt !== undefined) doc.occurredAt = session.occurredAt;
      if (neighbours.length > 0) doc.context = neighbours;
      docs.push(doc);
      idOf.set(id, evidenceId);
    });
  }
  return { docs, idOf };
}

/** Loads a conversation into a fresh in-memory store; several SearchIndex settings can search it. */
export function loadConversation(
  conversation: Conversation,
  documents: DocumentOptions = DEFAULT_DOCUMENTS,
): { database: SqliteDatabase; idOf: Map<number, string> } {
  const database = openMemoryDatabase();
  const { docs, idOf } = conversationDocuments(conversation, documents);
  const options: SearchIndexOptions = { timeWords: documents.timeWords, contextCap: documents.contextCap };
  if (documents.speakerWords !== undefined) options.speakerWords = documents.speakerWords;
  new SearchIndex(database, options).upsertMany(docs);
  return { database, idOf };
}

export function searcherOf(
  database: SqliteDatabase,
  idOf: ReadonlyMap<number, string>,
  options: SearchIndexOptions = {},
): (question: string) => Promise<string[]> {
  const index = new SearchIndex(database, options);
  return async (question) => {
    const hits = await index.search(question, {
      namespace: "episode",
      scopes: [BENCH_SCOPE],
      pool: BENCH_POOL,
    });
    return hits.map((hit) => idOf.get(hit.id) ?? "");
  };
}

export function mercuryRetriever(
  conversation: Conversation,
  documents: DocumentOptions = DEFAULT_DOCUMENTS,
  search: SearchIndexOptions = {},
): Retriever {
  const { database, idOf } = loadConversation(conversation, documents);
  return { search: searcherOf(database, idOf, search), close: () => database.close() };
}

/**
 * The reference point of shared/bench/README.md: SQLite FTS5 with its own `porter unicode61`
 * tokenizer over the turn's speaker, text and caption, stopwords removed from the question, the
 * remaining words OR-ed, ranked by plain bm25(). No analyzer, no features.
 */
export function plainFts5Retriever(conversation: Conversation): Retriever {
  const database: SqliteDatabase = openMemoryDatabase();
  database.exec("CREATE VIRTUAL TABLE plain USING fts5(text, tokenize = 'porter unicode61')");
  const insert = database.prepare("INSERT INTO plain (rowid, text) VALUES (?, ?)");
  const idOf = new Map<number, string>();
  database.transaction(() => {
    for (const session of conversation.sessions) {
      for (const turn of session.turns) {
        const evidenceId = normalizeEvidenceId(turn.dia_id);
        if (evidenceId === undefined) continue;
        const rowid = idOf.size + 1;
        idOf.set(rowid, evidenceId);
        insert.run(rowid, `${turn.speaker}: ${turn.text}${captionOf(turn)}`);
      }
    }
  })();
  const query = database
    .prepare(`SELECT rowid FROM plain WHERE plain MATCH ? ORDER BY bm25(plain) LIMIT ${BENCH_POOL}`)
    .pluck();
  return {
    async search(question) {
      const words = question
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((word) => word !== "" && !STOPWORDS.has(word));
      if (words.length === 0) return [];
      const expression = [...new Set(words)].map((word) => `"${word}"`).join(" OR ");
      return (query.all(expression) as number[]).map((rowid) => idOf.get(rowid) ?? "");
    },
    close: () => database.close(),
  };
}
