import type { SearchIndex } from "../search/search-index.js";

export const MEMORY_KINDS = [
  "fact",
  "preference",
  "goal",
  "decision",
  "constraint",
  "relationship",
  "event",
  "instruction",
] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/** Who vouches for a memory. The fixed set confidence and the contradiction rule are defined over. */
export const EVIDENCE_KINDS = [
  "user-stated",
  "user-confirmed",
  "inferred",
  "agent-observed",
  "imported",
  "manual",
] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export const IMPORTANCE_LEVELS = ["low", "normal", "high", "critical"] as const;
export type Importance = (typeof IMPORTANCE_LEVELS)[number];

export const TIERS = ["active", "dormant", "archived"] as const;
export type Tier = (typeof TIERS)[number];

export const VERSION_REASONS = [
  "created",
  "confirmed",
  "edited",
  "superseded",
  "contradicted",
  "imported",
  "conflict",
] as const;
export type VersionReason = (typeof VERSION_REASONS)[number];

/** The user's own words (or deliberate edits) as opposed to paraphrases by a model or an import. */
export function isUserLevel(evidence: EvidenceKind): boolean {
  return evidence === "user-stated" || evidence === "user-confirmed" || evidence === "manual";
}

export interface Memory {
  id: number;
  userKey: string;
  project: string | null;
  kind: MemoryKind;
  text: string;
  wordingEvidence: EvidenceKind;
  evidence: EvidenceKind;
  confirmations: number;
  contradictions: number;
  importance: Importance;
  sourceSessionId: string | null;
  sourceMessageIds: number[];
  sourceQuote: string | null;
  validFrom: string | null;
  validTo: string | null;
  recordedAt: string;
  supersededAt: string | null;
  supersededBy: number | null;
  tier: Tier;
  lastUsedAt: string | null;
  lastConfirmedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MemoryVersion {
  id: number;
  memoryId: number;
  text: string;
  kind: MemoryKind;
  importance: Importance;
  evidence: EvidenceKind;
  reason: VersionReason;
  sourceSessionId: string | null;
  sourceMessageIds: number[];
  sourceQuote: string | null;
  createdAt: string;
}

/** Where a claim came from: the conversation and the quoted words it rests on. */
export interface Provenance {
  sessionId: string | null;
  messageIds: number[];
  quote: string | null;
}

/** A claim about to enter the store: from extraction, a tool call, the CLI or an import. */
export interface Candidate {
  userKey: string;
  project?: string | null;
  kind: MemoryKind;
  text: string;
  evidence: EvidenceKind;
  importance: Importance;
  provenance: Provenance;
  validFrom?: string | null;
}

export type Receipt = {
  kind: "remembered" | "updated" | "confirmed" | "failed" | "forgotten";
  text: string;
  userKey: string;
  /** For logs, which carry ids and never the text. */
  memoryId?: number;
};

export type ReceiptListener = (receipt: Receipt) => void;

/** The part of the retrieval engine (src/memory/search) the store uses. */
export type MemoryIndex = Pick<SearchIndex, "upsert" | "remove" | "removeMany" | "search">;
