import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { ModelMessage } from "../model/types.js";
import type { SqliteDatabase } from "./database.js";

export interface StoredMessage {
  id: number;
  taskId: string | null;
  message: ModelMessage;
  tokenEstimate: number;
}

const messageRow = z.object({
  id: z.number(),
  task_id: z.string().nullable(),
  content: z.string(),
  token_estimate: z.number(),
});

const recentRow = z.object({ id: z.string(), updated_at: z.string(), first: z.string().nullable() });

/** The text of a stored user message (its content is a string or an array of parts). */
function firstUserText(content: string | null): string | null {
  if (content === null) return null;
  const message = JSON.parse(content) as ModelMessage;
  if (typeof message.content === "string") return message.content;
  if (!Array.isArray(message.content)) return null;
  const texts: string[] = [];
  for (const part of message.content as unknown[]) {
    if (part && typeof part === "object" && "text" in part && typeof part.text === "string")
      texts.push(part.text);
  }
  return texts.length > 0 ? texts.join(" ") : null;
}

const sessionRow = z.object({
  id: z.string(),
  user_key: z.string(),
  channel: z.string(),
  updated_at: z.string(),
});

export function estimateMessageTokens(message: ModelMessage): number {
  // ~4 characters per token plus a small per-message overhead; only used to bound history.
  return Math.ceil(JSON.stringify(message.content).length / 4) + 4;
}

/** Sessions and their full transcripts (user, assistant, tool calls and results), one row per message. */
export class TranscriptStore {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly now: () => Date = () => new Date(),
  ) {}

  createSession(userKey: string, channel: string, id: string = randomUUID()): string {
    const at = this.now().toISOString();
    this.database
      .prepare("INSERT INTO sessions (id, user_key, channel, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
      .run(id, userKey, channel, at, at);
    return id;
  }

  getSession(id: string): { id: string; userKey: string; channel: string; updatedAt: string } | null {
    const row = this.database
      .prepare("SELECT id, user_key, channel, updated_at FROM sessions WHERE id = ?")
      .get(id);
    if (row === undefined) return null;
    const parsed = sessionRow.parse(row);
    return { id: parsed.id, userKey: parsed.user_key, channel: parsed.channel, updatedAt: parsed.updated_at };
  }

  /** The most recently used sessions, newest first, each with its first user message (for /resume). */
  recentSessions(
    userKey: string,
    channel: string,
    limit: number,
  ): { id: string; updatedAt: string; firstMessage: string | null }[] {
    const rows = this.database
      .prepare(
        `SELECT s.id, s.updated_at,
           (SELECT m.content FROM messages m WHERE m.session_id = s.id AND m.role = 'user' ORDER BY m.id LIMIT 1) AS first
         FROM sessions s WHERE s.user_key = ? AND s.channel = ? ORDER BY s.rowid DESC LIMIT ?`,
      )
      .all(userKey, channel, limit);
    return rows.map((row) => {
      const parsed = recentRow.parse(row);
      return { id: parsed.id, updatedAt: parsed.updated_at, firstMessage: firstUserText(parsed.first) };
    });
  }

  latestSession(userKey: string, channel: string): string | null {
    const row = this.database
      .prepare("SELECT id FROM sessions WHERE user_key = ? AND channel = ? ORDER BY rowid DESC LIMIT 1")
      .get(userKey, channel);
    return row === undefined ? null : z.object({ id: z.string() }).parse(row).id;
  }

  append(sessionId: string, taskId: string | null, messages: ModelMessage[]): StoredMessage[] {
    const at = this.now().toISOString();
    const insert = this.database.prepare(
      "INSERT INTO messages (session_id, task_id, role, content, token_estimate, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const stored: StoredMessage[] = [];
    this.database.transaction(() => {
      for (const message of messages) {
        const tokenEstimate = estimateMessageTokens(message);
        const result = insert.run(
          sessionId,
          taskId,
          message.role,
          JSON.stringify(message),
          tokenEstimate,
          at,
        );
        stored.push({ id: Number(result.lastInsertRowid), taskId, message, tokenEstimate });
      }
      // The session moves to the end of the rowid sequence: "latest" is the order of writes, never
      // the wall clock (a clock set back made --continue and /resume pick an older session).
      this.database
        .prepare(
          "UPDATE sessions SET updated_at = ?, rowid = (SELECT MAX(rowid) FROM sessions) + 1 WHERE id = ?",
        )
        .run(at, sessionId);
    })();
    return stored;
  }

  load(sessionId: string): StoredMessage[] {
    const rows = this.database
      .prepare("SELECT id, task_id, content, token_estimate FROM messages WHERE session_id = ? ORDER BY id")
      .all(sessionId);
    return rows.map((row) => {
      const parsed = messageRow.parse(row);
      return {
        id: parsed.id,
        taskId: parsed.task_id,
        message: JSON.parse(parsed.content) as ModelMessage,
        tokenEstimate: parsed.token_estimate,
      };
    });
  }
}
