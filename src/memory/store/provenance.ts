import type { SqliteDatabase } from "../../storage/database.js";
import type { Memory, MemoryVersion } from "./types.js";

/** One conversation turn a memory rests on, as the archive recorded it. */
export interface SourceTurn {
  messageId: number;
  sessionId: string;
  role: string;
  speaker: string | null;
  text: string;
  at: string;
}

/** True when the memory was believed at `at`: recorded by then, not yet superseded, still valid. */
export function believedAt(memory: Memory, at: string): boolean {
  const time = Date.parse(at);
  if (Date.parse(memory.recordedAt) > time) return false;
  if (memory.supersededAt !== null && Date.parse(memory.supersededAt) <= time) return false;
  if (memory.validTo !== null && Date.parse(memory.validTo) <= time) return false;
  return true;
}

/** A DATE or date-time given on the command line, as an ISO instant (a bare date means its end). */
export function parseAsOf(raw: string): string {
  const trimmed = raw.trim();
  const bareDate = /^\d{4}-\d{2}-\d{2}$/.test(trimmed);
  const parsed = Date.parse(bareDate ? `${trimmed}T23:59:59.999Z` : trimmed);
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed) || Number.isNaN(parsed)) {
    throw new RangeError(`--as-of must be a date like 2026-03-01 or 2026-03-01T12:00:00Z; got "${raw}"`);
  }
  return new Date(parsed).toISOString();
}

/**
 * When the turns a fact was extracted from were said: the latest of the user's own turns among them,
 * else the latest of any of them; null when none is archived.
 */
export function sourceTurnTime(
  database: SqliteDatabase,
  userKey: string,
  messageIds: readonly number[],
): string | null {
  if (messageIds.length === 0) return null;
  const row = database
    .prepare(
      `SELECT created_at FROM episodes
       WHERE user_key = ? AND message_id IN (SELECT value FROM json_each(?))
       ORDER BY role = 'user' DESC, created_at DESC LIMIT 1`,
    )
    .get(userKey, JSON.stringify(messageIds)) as { created_at: string } | undefined;
  return row?.created_at ?? null;
}

/** The archived turns (episodes) behind a memory and its versions, oldest first. */
export function sourceTurns(
  database: SqliteDatabase,
  userKey: string,
  memory: Memory,
  versions: readonly MemoryVersion[],
): SourceTurn[] {
  const ids = [
    ...new Set([...memory.sourceMessageIds, ...versions.flatMap((version) => version.sourceMessageIds)]),
  ];
  const rows = database
    .prepare(
      `SELECT message_id, session_id, role, speaker, text, created_at FROM episodes
       WHERE user_key = ? AND message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id`,
    )
    .all(userKey, JSON.stringify(ids)) as {
    message_id: number;
    session_id: string;
    role: string;
    speaker: string | null;
    text: string;
    created_at: string;
  }[];
  return rows.map((row) => ({
    messageId: row.message_id,
    sessionId: row.session_id,
    role: row.role,
    speaker: row.speaker,
    text: row.text,
    at: row.created_at,
  }));
}
