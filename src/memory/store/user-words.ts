import type { SqliteDatabase } from "../../storage/database.js";

function collapse(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

function stringsIn(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, out);
  else if (value !== null && typeof value === "object")
    for (const item of Object.values(value)) stringsIn(item, out);
}

/** Texts of the recent user messages of a session (transcript rows hold provider-message JSON). */
function recentUserMessageTexts(database: SqliteDatabase, sessionId: string, userKey: string, limit: number) {
  const rows = database
    .prepare(
      `SELECT m.content FROM messages m JOIN sessions s ON s.id = m.session_id
       WHERE m.session_id = ? AND s.user_key = ? AND m.role = 'user' ORDER BY m.id DESC LIMIT ?`,
    )
    .all(sessionId, userKey, limit) as { content: string }[];
  const texts: string[] = [];
  for (const row of rows) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.content);
    } catch {
      // Not JSON: the row holds plain text, which is what we compare anyway.
      texts.push(row.content);
      continue;
    }
    stringsIn(parsed, texts);
  }
  return texts;
}

/**
 * True when `quote` occurs in one of the user's last messages of the session. This is what lets a
 * tool call claim "user-stated": the model cannot vouch for the user, the transcript can.
 */
export function userSaidRecently(
  database: SqliteDatabase,
  input: { sessionId: string; userKey: string; quote: string; lookback?: number },
): boolean {
  const needle = collapse(input.quote);
  if (needle.length < 3) return false;
  return recentUserTexts(database, input).some((text) => collapse(text).includes(needle));
}

/** The texts of the user's last messages of a session (archived turns and transcript rows). */
export function recentUserTexts(
  database: SqliteDatabase,
  input: { sessionId: string; userKey: string; lookback?: number },
): string[] {
  const lookback = input.lookback ?? 3;
  const episodeTexts = (
    database
      .prepare(
        "SELECT text FROM episodes WHERE session_id = ? AND user_key = ? AND role = 'user' ORDER BY id DESC LIMIT ?",
      )
      .all(input.sessionId, input.userKey, lookback) as { text: string }[]
  ).map((row) => row.text);
  return [...episodeTexts, ...recentUserMessageTexts(database, input.sessionId, input.userKey, lookback)];
}
