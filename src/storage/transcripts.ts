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

  latestSession(userKey: string, channel: string): string | null {
    const row = this.database
      .prepare(
        "SELECT id FROM sessions WHERE user_key = ? AND channel = ? ORDER BY updated_at DESC, rowid DESC LIMIT 1",
      )
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
      this.database.prepare("UPDATE sessions SET updated_at = ? WHERE id = ?").run(at, sessionId);
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
