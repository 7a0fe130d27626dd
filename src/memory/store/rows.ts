import { z } from "zod";
import {
  evidenceKindSchema,
  importanceSchema,
  type Memory,
  type MemoryVersion,
  memoryKindSchema,
  tierSchema,
  VERSION_REASONS,
} from "./types.js";

/** Message ids are stored as a JSON array; anything else in the column is corruption, not data. */
const messageIdsSchema = z
  .string()
  .transform((value, context) => {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      context.addIssue({ code: "custom", message: `source_message_ids is not JSON: ${value}` });
      return z.NEVER;
    }
  })
  .pipe(z.array(z.number().int()));

const memoryRowSchema = z.object({
  id: z.number().int(),
  user_key: z.string(),
  project: z.string().nullable(),
  kind: memoryKindSchema,
  text: z.string(),
  wording_evidence: evidenceKindSchema,
  evidence: evidenceKindSchema,
  confirmations: z.number().int(),
  contradictions: z.number().int(),
  importance: importanceSchema,
  source_session_id: z.string().nullable(),
  source_message_ids: messageIdsSchema,
  source_quote: z.string().nullable(),
  valid_from: z.string().nullable(),
  valid_to: z.string().nullable(),
  recorded_at: z.string(),
  superseded_at: z.string().nullable(),
  superseded_by: z.number().int().nullable(),
  tier: tierSchema,
  last_used_at: z.string().nullable(),
  last_confirmed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export function memoryFromRow(row: unknown): Memory {
  const r = memoryRowSchema.parse(row);
  return {
    id: r.id,
    userKey: r.user_key,
    project: r.project,
    kind: r.kind,
    text: r.text,
    wordingEvidence: r.wording_evidence,
    evidence: r.evidence,
    confirmations: r.confirmations,
    contradictions: r.contradictions,
    importance: r.importance,
    sourceSessionId: r.source_session_id,
    sourceMessageIds: r.source_message_ids,
    sourceQuote: r.source_quote,
    validFrom: r.valid_from,
    validTo: r.valid_to,
    recordedAt: r.recorded_at,
    supersededAt: r.superseded_at,
    supersededBy: r.superseded_by,
    tier: r.tier,
    lastUsedAt: r.last_used_at,
    lastConfirmedAt: r.last_confirmed_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const versionRowSchema = z.object({
  id: z.number().int(),
  memory_id: z.number().int(),
  text: z.string(),
  kind: memoryKindSchema,
  importance: importanceSchema,
  evidence: evidenceKindSchema,
  reason: z.enum(VERSION_REASONS),
  source_session_id: z.string().nullable(),
  source_message_ids: messageIdsSchema,
  source_quote: z.string().nullable(),
  created_at: z.string(),
});

export function versionFromRow(row: unknown): MemoryVersion {
  const r = versionRowSchema.parse(row);
  return {
    id: r.id,
    memoryId: r.memory_id,
    text: r.text,
    kind: r.kind,
    importance: r.importance,
    evidence: r.evidence,
    reason: r.reason,
    sourceSessionId: r.source_session_id,
    sourceMessageIds: r.source_message_ids,
    sourceQuote: r.source_quote,
    createdAt: r.created_at,
  };
}
