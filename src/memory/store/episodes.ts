import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "../../storage/database.js";
import { RowReader } from "../../storage/row-shape.js";
import { CONTEXT_WINDOW, turnContext } from "../search/turn-context.js";
import type { IndexedDocument } from "../search/types.js";

/**
 * What replaces forgotten words: the conversation keeps its shape (every turn, every tool call).
 * Defined with the turns it marks rather than in redaction.ts, so that recording and reading turns
 * (every `memory add|search`) does not load the forget code (issue 11, memory-command latency).
 */
export const FORGOTTEN = "[forgotten]";

export type EpisodeRole = "user" | "assistant" | "tool";

export interface EpisodeInput {
  userKey: string;
  sessionId: string;
  messageId?: number | null;
  role: EpisodeRole;
  /** Display name of who spoke (e.g. a Telegram member's name); optional. */
  speaker?: string | null;
  text: string;
  createdAt: string;
}

export interface Episode {
  id: number;
  userKey: string;
  sessionId: string;
  messageId: number | null;
  role: EpisodeRole;
  speaker: string | null;
  text: string;
  createdAt: string;
}

/** The turns around one turn of a session, nearest first, as the index reads them for its context. */
export interface EpisodeNeighbours {
  before: readonly string[];
  after: readonly string[];
}

/**
 * What the search index holds for one turn. Every writer (recording a turn, re-indexing after a
 * redaction) builds it here, so none drops a field: the turn's speaker and role (a first-person
 * question favours the user's turns, search/precision.ts), its session key, and the turns around it
 * as context (search/turn-context.ts), the same document shape the retrieval bench measures.
 */
export function episodeDocument(
  episode: Pick<Episode, "id" | "userKey" | "sessionId" | "text" | "role" | "speaker">,
  neighbours: EpisodeNeighbours = { before: [], after: [] },
): IndexedDocument {
  const doc: IndexedDocument = {
    namespace: "episode",
    id: episode.id,
    scope: episode.userKey,
    text: episode.text,
    session: episode.sessionId,
  };
  if (episode.speaker !== null && episode.speaker.trim() !== "") doc.speaker = episode.speaker;
  if (episode.role === "user" || episode.role === "assistant") doc.role = episode.role;
  const context = turnContext(neighbours.before.map(withoutMarker), neighbours.after.map(withoutMarker));
  if (context.length > 0) doc.context = context;
  return doc;
}

/** A scrubbed turn's "[forgotten]" markers are not words of its neighbours' context. */
function withoutMarker(text: string): string {
  return text.replaceAll(FORGOTTEN, " ");
}

const EPISODE_ROLES = ["user", "assistant", "tool"] as const;

export function episodeFromRow(row: unknown): Episode {
  const r = new RowReader("episodes", row);
  return {
    id: r.integer("id"),
    userKey: r.text("user_key"),
    sessionId: r.text("session_id"),
    messageId: r.integerOrNull("message_id"),
    role: r.oneOf("role", EPISODE_ROLES),
    speaker: r.textOrNull("speaker"),
    text: r.text("text"),
    createdAt: r.text("created_at"),
  };
}

/** The episodic archive: every turn, kept until the user deletes it. */
export class EpisodeRepository {
  /** Statements prepared once: recording a turn reads its neighbours' texts for three documents. */
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly database: SqliteDatabase) {}

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.database.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  insert(input: EpisodeInput): Episode {
    const info = this.database
      .prepare(
        `INSERT INTO episodes (user_key, session_id, message_id, role, speaker, text, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        input.userKey,
        input.sessionId,
        input.messageId ?? null,
        input.role,
        input.speaker ?? null,
        input.text,
        input.createdAt,
      );
    const row = this.database
      .prepare("SELECT * FROM episodes WHERE id = ?")
      .get(Number(info.lastInsertRowid));
    return episodeFromRow(row);
  }

  getMany(ids: readonly number[]): Map<number, Episode> {
    const result = new Map<number, Episode>();
    if (ids.length === 0) return result;
    const rows = this.database
      .prepare("SELECT * FROM episodes WHERE id IN (SELECT value FROM json_each(?))")
      .all(JSON.stringify(ids));
    for (const row of rows) {
      const episode = episodeFromRow(row);
      result.set(episode.id, episode);
    }
    return result;
  }

  /** The texts of the CONTEXT_WINDOW turns before and after one turn in its session, nearest first. */
  neighbours(episode: Pick<Episode, "id" | "userKey" | "sessionId">): EpisodeNeighbours {
    const side = (sql: string) =>
      (
        this.statement(sql).all(episode.sessionId, episode.userKey, episode.id, CONTEXT_WINDOW) as {
          text: string;
        }[]
      ).map((row) => row.text);
    return {
      before: side(
        "SELECT text FROM episodes WHERE session_id = ? AND user_key = ? AND id < ? ORDER BY id DESC LIMIT ?",
      ),
      after: side(
        "SELECT text FROM episodes WHERE session_id = ? AND user_key = ? AND id > ? ORDER BY id LIMIT ?",
      ),
    };
  }

  /** Ids of the CONTEXT_WINDOW turns before and after each turn in its session: whose context holds it. */
  neighbourIds(ids: readonly number[]): number[] {
    const sessionOf = this.statement("SELECT session_id, user_key FROM episodes WHERE id = ?");
    const before = this.statement(
      "SELECT id FROM episodes WHERE session_id = ? AND user_key = ? AND id < ? ORDER BY id DESC LIMIT ?",
    ).pluck();
    const after = this.statement(
      "SELECT id FROM episodes WHERE session_id = ? AND user_key = ? AND id > ? ORDER BY id LIMIT ?",
    ).pluck();
    const found = new Set<number>();
    for (const id of ids) {
      const row = sessionOf.get(id) as { session_id: string; user_key: string } | undefined;
      if (!row) continue;
      for (const side of [before, after])
        for (const other of side.all(row.session_id, row.user_key, id, CONTEXT_WINDOW) as number[])
          found.add(other);
    }
    return [...found];
  }

  /** The search document of a turn, with its neighbours' texts as context. */
  document(episode: Episode): IndexedDocument {
    return episodeDocument(episode, this.neighbours(episode));
  }

  /** User-role texts of a session, to check that a quoted source was really said by the user. */
  userTexts(sessionId: string, userKey: string, limit: number): string[] {
    return (
      this.database
        .prepare(
          `SELECT text FROM episodes WHERE session_id = ? AND user_key = ? AND role = 'user' ORDER BY id DESC LIMIT ?`,
        )
        .all(sessionId, userKey, limit) as { text: string }[]
    ).map((row) => row.text);
  }

  /** Deletes a person's archived turns of one session; returns the deleted ids. */
  deleteSession(sessionId: string, userKey: string): number[] {
    const ids = (
      this.database
        .prepare("SELECT id FROM episodes WHERE session_id = ? AND user_key = ?")
        .all(sessionId, userKey) as {
        id: number;
      }[]
    ).map((row) => row.id);
    this.database
      .prepare("DELETE FROM episodes WHERE session_id = ? AND user_key = ?")
      .run(sessionId, userKey);
    return ids;
  }
}
