import type { SqliteDatabase } from "../../storage/database.js";
import { RowReader } from "../../storage/row-shape.js";
import type { IndexedDocument } from "../search/types.js";

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

/**
 * What the search index holds for one turn. Every writer (recording a turn, re-indexing after a
 * redaction) builds it here, so none drops a field: turns of one chat session share a session key,
 * and search weighs a turn by its session too (search/sessions.ts).
 */
export function episodeDocument(
  episode: Pick<Episode, "id" | "userKey" | "sessionId" | "text">,
): IndexedDocument {
  return {
    namespace: "episode",
    id: episode.id,
    scope: episode.userKey,
    text: episode.text,
    session: episode.sessionId,
  };
}

const EPISODE_ROLES = ["user", "assistant", "tool"] as const;

function episodeFromRow(row: unknown): Episode {
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
  constructor(private readonly database: SqliteDatabase) {}

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
