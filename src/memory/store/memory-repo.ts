import type { SqliteDatabase } from "../../storage/database.js";
import { memoryFromRow, versionFromRow } from "./rows.js";
import type {
  Candidate,
  EvidenceKind,
  Importance,
  Memory,
  MemoryKind,
  MemoryVersion,
  Tier,
  VersionReason,
} from "./types.js";

export class MemoryNotFoundError extends Error {
  override name = "MemoryNotFoundError";
  constructor(
    readonly memoryId: number,
    readonly userKey: string,
  ) {
    super(
      `No memory #${memoryId} for user "${userKey}". Run \`mercury memory list --user ${userKey}\` to see its memories.`,
    );
  }
}

export interface VersionInput {
  text: string;
  kind: MemoryKind;
  importance: Importance;
  evidence: EvidenceKind;
  reason: VersionReason;
  sessionId: string | null;
  messageIds: readonly number[];
  quote: string | null;
  at: string;
}

export interface ListFilter {
  userKey: string;
  includeSuperseded?: boolean;
  tier?: Tier;
  kind?: MemoryKind;
  limit?: number;
}

export interface ConflictRow {
  id: number;
  userKey: string;
  a: Memory;
  b: Memory;
  reason: string;
  detectedAt: string;
}

/** Every SQL statement over memories, versions, conflicts and tombstones. No policy lives here. */
export class MemoryRepository {
  constructor(private readonly database: SqliteDatabase) {}

  insert(candidate: Candidate, at: string, reason: VersionReason): Memory {
    const info = this.database
      .prepare(
        `INSERT INTO memories (user_key, project, kind, text, wording_evidence, evidence, importance,
           source_session_id, source_message_ids, source_quote, valid_from, recorded_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        candidate.userKey,
        candidate.project ?? null,
        candidate.kind,
        candidate.text,
        candidate.evidence,
        candidate.evidence,
        candidate.importance,
        candidate.provenance.sessionId,
        JSON.stringify(candidate.provenance.messageIds),
        candidate.provenance.quote,
        candidate.validFrom ?? null,
        at,
        at,
        at,
      );
    const id = Number(info.lastInsertRowid);
    this.addVersion(id, {
      text: candidate.text,
      kind: candidate.kind,
      importance: candidate.importance,
      evidence: candidate.evidence,
      reason,
      sessionId: candidate.provenance.sessionId,
      messageIds: candidate.provenance.messageIds,
      quote: candidate.provenance.quote,
      at,
    });
    return this.require(id);
  }

  /** Inserts a full record as-is (import): counts, times and tier are kept, not recomputed. */
  insertRaw(memory: Omit<Memory, "id" | "supersededBy">): number {
    const info = this.database
      .prepare(
        `INSERT INTO memories (user_key, project, kind, text, wording_evidence, evidence, confirmations,
           contradictions, importance, source_session_id, source_message_ids, source_quote, valid_from,
           valid_to, recorded_at, superseded_at, tier, last_used_at, last_confirmed_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        memory.userKey,
        memory.project,
        memory.kind,
        memory.text,
        memory.wordingEvidence,
        memory.evidence,
        memory.confirmations,
        memory.contradictions,
        memory.importance,
        memory.sourceSessionId,
        JSON.stringify(memory.sourceMessageIds),
        memory.sourceQuote,
        memory.validFrom,
        memory.validTo,
        memory.recordedAt,
        memory.supersededAt,
        memory.tier,
        memory.lastUsedAt,
        memory.lastConfirmedAt,
        memory.createdAt,
        memory.updatedAt,
      );
    return Number(info.lastInsertRowid);
  }

  addVersion(memoryId: number, version: VersionInput): void {
    this.database
      .prepare(
        `INSERT INTO memory_versions (memory_id, text, kind, importance, evidence, reason, source_session_id,
           source_message_ids, source_quote, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        memoryId,
        version.text,
        version.kind,
        version.importance,
        version.evidence,
        version.reason,
        version.sessionId,
        JSON.stringify(version.messageIds),
        version.quote,
        version.at,
      );
  }

  get(id: number): Memory | undefined {
    const row = this.database.prepare("SELECT * FROM memories WHERE id = ?").get(id);
    return row === undefined ? undefined : memoryFromRow(row);
  }

  require(id: number): Memory {
    const memory = this.get(id);
    if (!memory) throw new Error(`memory #${id} vanished during an update`);
    return memory;
  }

  /** The memory, only if it belongs to `userKey`: one person can never read or change another's. */
  getForUser(id: number, userKey: string): Memory {
    const memory = this.get(id);
    if (!memory || memory.userKey !== userKey) throw new MemoryNotFoundError(id, userKey);
    return memory;
  }

  getMany(ids: readonly number[]): Map<number, Memory> {
    const result = new Map<number, Memory>();
    if (ids.length === 0) return result;
    const statement = this.database.prepare(
      `SELECT * FROM memories WHERE id IN (SELECT value FROM json_each(?))`,
    );
    for (const row of statement.all(JSON.stringify(ids))) {
      const memory = memoryFromRow(row);
      result.set(memory.id, memory);
    }
    return result;
  }

  list(filter: ListFilter): Memory[] {
    const clauses = ["user_key = ?"];
    const params: (string | number)[] = [filter.userKey];
    if (!filter.includeSuperseded) clauses.push("superseded_at IS NULL");
    if (filter.tier) {
      clauses.push("tier = ?");
      params.push(filter.tier);
    }
    if (filter.kind) {
      clauses.push("kind = ?");
      params.push(filter.kind);
    }
    params.push(filter.limit ?? -1);
    return this.database
      .prepare(`SELECT * FROM memories WHERE ${clauses.join(" AND ")} ORDER BY id LIMIT ?`)
      .all(...params)
      .map(memoryFromRow);
  }

  allUsers(): string[] {
    return (
      this.database.prepare("SELECT DISTINCT user_key FROM memories ORDER BY user_key").all() as {
        user_key: string;
      }[]
    ).map((row) => row.user_key);
  }

  versions(memoryId: number): MemoryVersion[] {
    return this.database
      .prepare("SELECT * FROM memory_versions WHERE memory_id = ? ORDER BY id")
      .all(memoryId)
      .map(versionFromRow);
  }

  update(
    id: number,
    fields: Partial<
      Pick<
        Memory,
        | "text"
        | "wordingEvidence"
        | "evidence"
        | "confirmations"
        | "contradictions"
        | "importance"
        | "kind"
        | "validTo"
        | "supersededAt"
        | "supersededBy"
        | "tier"
        | "lastUsedAt"
        | "lastConfirmedAt"
      >
    >,
    at: string,
  ): Memory {
    const columns: Record<string, string> = {
      text: "text",
      wordingEvidence: "wording_evidence",
      evidence: "evidence",
      confirmations: "confirmations",
      contradictions: "contradictions",
      importance: "importance",
      kind: "kind",
      validTo: "valid_to",
      supersededAt: "superseded_at",
      supersededBy: "superseded_by",
      tier: "tier",
      lastUsedAt: "last_used_at",
      lastConfirmedAt: "last_confirmed_at",
    };
    const sets: string[] = [];
    const params: (string | number | null)[] = [];
    for (const [key, value] of Object.entries(fields)) {
      const column = columns[key];
      if (column === undefined) throw new Error(`unknown memory field ${key}`);
      sets.push(`${column} = ?`);
      params.push(value as string | number | null);
    }
    sets.push("updated_at = ?");
    params.push(at, id);
    this.database.prepare(`UPDATE memories SET ${sets.join(", ")} WHERE id = ?`).run(...params);
    return this.require(id);
  }

  /** Marks memories used and brings them back to the active tier (use is what keeps them alive). */
  markUsed(ids: readonly number[], at: string): void {
    if (ids.length === 0) return;
    this.database
      .prepare(
        `UPDATE memories SET last_used_at = ?, tier = 'active' WHERE id IN (SELECT value FROM json_each(?))`,
      )
      .run(at, JSON.stringify(ids));
  }

  /**
   * Deletes the row (versions and conflicts cascade) and leaves a content-free tombstone. Other
   * memories' histories can echo this one (a "contradicted" version carrying its text, a
   * "superseded" version carrying its quote): those echoes go too, so nothing of it remains.
   */
  delete(id: number, userKey: string, at: string): void {
    const echoes = this.database
      .prepare("SELECT text, source_quote FROM memory_versions WHERE memory_id = ?")
      .all(id) as { text: string; source_quote: string | null }[];
    const texts = JSON.stringify(echoes.map((row) => row.text));
    const quotes = JSON.stringify(
      echoes.flatMap((row) => (row.source_quote === null ? [] : [row.source_quote])),
    );
    const sameUser = "memory_id != ? AND memory_id IN (SELECT id FROM memories WHERE user_key = ?)";
    this.database
      .prepare(
        `DELETE FROM memory_versions WHERE ${sameUser} AND reason = 'contradicted'
           AND text IN (SELECT value FROM json_each(?))`,
      )
      .run(id, userKey, texts);
    this.database
      .prepare(
        `UPDATE memory_versions SET source_quote = NULL, source_session_id = NULL, source_message_ids = '[]'
         WHERE ${sameUser} AND reason = 'superseded' AND source_quote IN (SELECT value FROM json_each(?))`,
      )
      .run(id, userKey, quotes);
    this.database.prepare("DELETE FROM memories WHERE id = ? AND user_key = ?").run(id, userKey);
    this.database
      .prepare("INSERT OR REPLACE INTO memory_tombstones (memory_id, user_key, deleted_at) VALUES (?, ?, ?)")
      .run(id, userKey, at);
  }

  isTombstoned(id: number): boolean {
    return this.database.prepare("SELECT 1 FROM memory_tombstones WHERE memory_id = ?").get(id) !== undefined;
  }

  addConflict(userKey: string, a: number, b: number, reason: string, at: string): void {
    const existing = this.database
      .prepare(
        `SELECT 1 FROM memory_conflicts WHERE resolved_at IS NULL
           AND ((memory_a = ? AND memory_b = ?) OR (memory_a = ? AND memory_b = ?))`,
      )
      .get(a, b, b, a);
    if (existing) return;
    this.database
      .prepare(
        "INSERT INTO memory_conflicts (user_key, memory_a, memory_b, reason, detected_at) VALUES (?, ?, ?, ?, ?)",
      )
      .run(userKey, a, b, reason, at);
  }

  /** Open conflicts whose memories are both still current. */
  conflicts(userKey: string): ConflictRow[] {
    const rows = this.database
      .prepare(
        `SELECT c.id, c.user_key, c.memory_a, c.memory_b, c.reason, c.detected_at FROM memory_conflicts c
           JOIN memories a ON a.id = c.memory_a JOIN memories b ON b.id = c.memory_b
         WHERE c.user_key = ? AND c.resolved_at IS NULL AND a.superseded_at IS NULL AND b.superseded_at IS NULL
         ORDER BY c.id`,
      )
      .all(userKey) as {
      id: number;
      user_key: string;
      memory_a: number;
      memory_b: number;
      reason: string;
      detected_at: string;
    }[];
    return rows.map((row) => ({
      id: row.id,
      userKey: row.user_key,
      a: this.require(row.memory_a),
      b: this.require(row.memory_b),
      reason: row.reason,
      detectedAt: row.detected_at,
    }));
  }

  resolveConflictsOf(id: number, at: string): void {
    this.database
      .prepare(
        "UPDATE memory_conflicts SET resolved_at = ? WHERE resolved_at IS NULL AND (memory_a = ? OR memory_b = ?)",
      )
      .run(at, id, id);
  }

  countBy(userKey: string | null, column: "tier" | "kind" | "evidence"): Record<string, number> {
    const where = userKey === null ? "" : "AND user_key = ?";
    const rows = this.database
      .prepare(
        `SELECT ${column} AS key, COUNT(*) AS n FROM memories WHERE superseded_at IS NULL ${where} GROUP BY ${column}`,
      )
      .all(...(userKey === null ? [] : [userKey])) as { key: string; n: number }[];
    return Object.fromEntries(rows.map((row) => [row.key, row.n]));
  }

  countSuperseded(userKey: string | null): number {
    const row = this.database
      .prepare(
        `SELECT COUNT(*) AS n FROM memories WHERE superseded_at IS NOT NULL ${userKey === null ? "" : "AND user_key = ?"}`,
      )
      .get(...(userKey === null ? [] : [userKey])) as { n: number };
    return row.n;
  }
}
