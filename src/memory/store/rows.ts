import { RowReader } from "../../storage/row-shape.js";
import {
  EVIDENCE_KINDS,
  IMPORTANCE_LEVELS,
  MEMORY_KINDS,
  type Memory,
  type MemoryVersion,
  TIERS,
  VERSION_REASONS,
} from "./types.js";

// Checked by hand (storage/row-shape.ts), not with zod: every memory command reads rows, and zod's
// import alone cost them more than the rest of their work. Message ids are a JSON array; anything
// else in the column is corruption, not data.

export function memoryFromRow(row: unknown): Memory {
  const r = new RowReader("memories", row);
  return {
    id: r.integer("id"),
    userKey: r.text("user_key"),
    project: r.textOrNull("project"),
    kind: r.oneOf("kind", MEMORY_KINDS),
    text: r.text("text"),
    wordingEvidence: r.oneOf("wording_evidence", EVIDENCE_KINDS),
    evidence: r.oneOf("evidence", EVIDENCE_KINDS),
    confirmations: r.integer("confirmations"),
    contradictions: r.integer("contradictions"),
    importance: r.oneOf("importance", IMPORTANCE_LEVELS),
    sourceSessionId: r.textOrNull("source_session_id"),
    sourceMessageIds: r.integerList("source_message_ids"),
    sourceQuote: r.textOrNull("source_quote"),
    validFrom: r.textOrNull("valid_from"),
    validTo: r.textOrNull("valid_to"),
    recordedAt: r.text("recorded_at"),
    supersededAt: r.textOrNull("superseded_at"),
    supersededBy: r.integerOrNull("superseded_by"),
    tier: r.oneOf("tier", TIERS),
    lastUsedAt: r.textOrNull("last_used_at"),
    lastConfirmedAt: r.textOrNull("last_confirmed_at"),
    createdAt: r.text("created_at"),
    updatedAt: r.text("updated_at"),
  };
}

export function versionFromRow(row: unknown): MemoryVersion {
  const r = new RowReader("memory_versions", row);
  return {
    id: r.integer("id"),
    memoryId: r.integer("memory_id"),
    text: r.text("text"),
    kind: r.oneOf("kind", MEMORY_KINDS),
    importance: r.oneOf("importance", IMPORTANCE_LEVELS),
    evidence: r.oneOf("evidence", EVIDENCE_KINDS),
    reason: r.oneOf("reason", VERSION_REASONS),
    sourceSessionId: r.textOrNull("source_session_id"),
    sourceMessageIds: r.integerList("source_message_ids"),
    sourceQuote: r.textOrNull("source_quote"),
    createdAt: r.text("created_at"),
  };
}
