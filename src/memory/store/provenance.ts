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

/**
 * True when the memory was believed at `at`: recorded by then, not yet superseded, and valid then
 * (its validity had begun and not ended: "moves to Berlin on June 1" is not yet true in May).
 */
export function believedAt(memory: Memory, at: string): boolean {
  const time = Date.parse(at);
  if (Date.parse(memory.recordedAt) > time) return false;
  if (memory.validFrom !== null && Date.parse(memory.validFrom) > time) return false;
  if (memory.supersededAt !== null && Date.parse(memory.supersededAt) <= time) return false;
  if (memory.validTo !== null && Date.parse(memory.validTo) <= time) return false;
  return true;
}

const AS_OF =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A DATE or date-time given on the command line, as an ISO instant (a bare date means the end of
 * that day, UTC; a time without a zone is local). The calendar is checked: 2026-02-30 and
 * 2026-02-29 are refused, not rolled over into March, and nothing may follow the date.
 */
export function parseAsOf(raw: string): string {
  const trimmed = raw.trim();
  const refuse = (why: string) =>
    new RangeError(
      `--as-of must be a date like 2026-03-01 or 2026-03-01T12:00:00Z; got "${raw}"${why ? ` (${why})` : ""}`,
    );
  const match = AS_OF.exec(trimmed);
  if (!match) throw refuse("");
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (
    calendar.getUTCFullYear() !== year ||
    calendar.getUTCMonth() !== month - 1 ||
    calendar.getUTCDate() !== day
  ) {
    throw refuse(`${match[1]}-${match[2]}-${match[3]} is not a day of the calendar`);
  }
  if (
    match[4] !== undefined &&
    (Number(match[4]) > 23 || Number(match[5]) > 59 || Number(match[6] ?? 0) > 59)
  ) {
    throw refuse("the time is out of range");
  }
  const bareDate = match[4] === undefined;
  const parsed = Date.parse(bareDate ? `${trimmed}T23:59:59.999Z` : trimmed.replace(" ", "T"));
  if (Number.isNaN(parsed)) throw refuse("");
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
