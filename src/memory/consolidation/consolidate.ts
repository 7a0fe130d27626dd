import type { Clock } from "../../agent/clock.js";
import type { SqliteDatabase } from "../../storage/database.js";
import { EVIDENCE_BASE } from "../confidence.js";
import type { MemoryModel } from "../extraction/model.js";
import type { JobRepository } from "../store/jobs.js";
import type { MemoryRepository } from "../store/memory-repo.js";
import {
  type Candidate,
  type EvidenceKind,
  type Importance,
  isUserLevel,
  type Memory,
  type MemoryIndex,
  type Receipt,
} from "../store/types.js";
import { lexicalSimilarity } from "../text/index.js";
import { type Judgement, judgeByModel, judgeByRules } from "./judge.js";
import { type Claim, decideContradiction } from "./rule.js";

export interface ConsolidationDeps {
  database: SqliteDatabase;
  memories: MemoryRepository;
  jobs: JobRepository;
  index: MemoryIndex;
  clock: Clock;
  emit(receipt: Receipt): void;
  /** When set, the model judges same/contradicts/unrelated; the rules decide when it fails. */
  judge?: MemoryModel;
}

export type ConsolidationOutcome =
  | { action: "created"; memory: Memory }
  | { action: "confirmed"; memory: Memory; judgement: Judgement }
  | { action: "superseded"; memory: Memory; previous: Memory; rule: string }
  | { action: "kept-existing"; memory: Memory; rejected: Memory; rule: string }
  | { action: "conflict"; memory: Memory; other: Memory; rule: string };

/** How many similar memories a candidate is judged against, and the floor for judging at all. */
const NEIGHBOURS = 5;
const MIN_SIMILARITY = 0.2;
const VECTOR_NEIGHBOURS = 3;

const IMPORTANCE_ORDER: Readonly<Record<Importance, number>> = { low: 0, normal: 1, high: 2, critical: 3 };

/**
 * Puts one candidate into the store: confirms the memory it repeats, resolves a contradiction by
 * the documented rule, or creates a new memory. Every write produces exactly one receipt.
 */
export async function consolidate(
  deps: ConsolidationDeps,
  candidate: Candidate,
  signal?: AbortSignal,
): Promise<ConsolidationOutcome> {
  const neighbours = await similarMemories(deps, candidate);
  for (const existing of neighbours) {
    signal?.throwIfAborted();
    const judgement = await judge(deps, candidate, existing, signal);
    if (judgement.verdict === "same") return confirm(deps, existing, candidate, judgement);
    if (judgement.verdict === "contradicts") return resolve(deps, existing, candidate, judgement);
  }
  return create(deps, candidate);
}

async function similarMemories(deps: ConsolidationDeps, candidate: Candidate): Promise<Memory[]> {
  const hits = await deps.index.search(candidate.text, {
    namespace: "memory",
    scopes: [candidate.userKey],
    pool: 20,
  });
  const found = deps.memories.getMany(hits.map((hit) => hit.id));
  const project = candidate.project ?? null;
  return hits
    .map((hit) => ({ hit, memory: found.get(hit.id) }))
    .filter(
      (entry): entry is { hit: (typeof hits)[number]; memory: Memory } =>
        entry.memory !== undefined &&
        entry.memory.userKey === candidate.userKey &&
        entry.memory.supersededAt === null &&
        (entry.memory.project ?? null) === project,
    )
    .map(({ hit, memory }) => ({
      memory,
      similarity: lexicalSimilarity(candidate.text, memory.text),
      // A close vector neighbour (synonyms, paraphrase) is judged even with little word overlap.
      vectorNeighbour: hit.vectorRank !== null && hit.vectorRank <= VECTOR_NEIGHBOURS,
    }))
    .filter((entry) => entry.similarity >= MIN_SIMILARITY || entry.vectorNeighbour)
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, NEIGHBOURS)
    .map((entry) => entry.memory);
}

async function judge(
  deps: ConsolidationDeps,
  candidate: Candidate,
  existing: Memory,
  signal?: AbortSignal,
): Promise<Judgement> {
  if (!deps.judge) return judgeByRules(candidate.text, existing.text);
  const result = await judgeByModel(deps.judge, candidate.text, existing.text, signal);
  if (result.ok) return result.judgement;
  // The fallback is the documented behaviour, but the model's failure is still recorded and visible.
  deps.jobs.recordFailure({
    jobId: null,
    userKey: candidate.userKey,
    stage: "judge",
    rawOutput: result.raw,
    reason: `${result.problem}; decided by the deterministic rules instead`,
    createdAt: deps.clock.now().toISOString(),
  });
  return judgeByRules(candidate.text, existing.text);
}

function stronger(a: EvidenceKind, b: EvidenceKind): EvidenceKind {
  return EVIDENCE_BASE[b] > EVIDENCE_BASE[a] ? b : a;
}

function confirm(
  deps: ConsolidationDeps,
  existing: Memory,
  candidate: Candidate,
  judgement: Judgement,
): ConsolidationOutcome {
  const at = deps.clock.now().toISOString();
  // Said again by the user: it is now user-confirmed (unless it was a deliberate manual entry).
  let evidence = stronger(existing.evidence, candidate.evidence);
  if (isUserLevel(existing.evidence) && isUserLevel(candidate.evidence) && evidence !== "manual") {
    evidence = "user-confirmed";
  }
  // The kept wording is the most recent one in the user's own words; a paraphrase replaces only
  // another paraphrase. Length never matters.
  const takeWording = isUserLevel(candidate.evidence) || !isUserLevel(existing.wordingEvidence);
  const importance =
    IMPORTANCE_ORDER[candidate.importance] > IMPORTANCE_ORDER[existing.importance]
      ? candidate.importance
      : existing.importance;
  const memory = deps.database.transaction(() => {
    deps.memories.addVersion(existing.id, {
      text: candidate.text,
      kind: candidate.kind,
      importance: candidate.importance,
      evidence: candidate.evidence,
      reason: "confirmed",
      sessionId: candidate.provenance.sessionId,
      messageIds: candidate.provenance.messageIds,
      quote: candidate.provenance.quote,
      at,
    });
    const updated = deps.memories.update(
      existing.id,
      {
        confirmations: existing.confirmations + 1,
        lastConfirmedAt: at,
        evidence,
        importance,
        tier: "active",
        ...(takeWording ? { text: candidate.text, wordingEvidence: candidate.evidence } : {}),
      },
      at,
    );
    if (updated.text !== existing.text) {
      deps.index.upsert({ namespace: "memory", id: updated.id, scope: updated.userKey, text: updated.text });
    }
    return updated;
  })();
  deps.emit({
    kind: "confirmed",
    userKey: memory.userKey,
    text:
      memory.text === existing.text
        ? `Confirmed: ${memory.text}`
        : `Confirmed: ${memory.text} (was worded: ${existing.text})`,
  });
  return { action: "confirmed", memory, judgement };
}

function claimOf(memory: Memory): Claim {
  return {
    evidence: memory.evidence,
    confirmations: memory.confirmations,
    importance: memory.importance,
    statedAt: memory.lastConfirmedAt ?? memory.recordedAt,
  };
}

function resolve(
  deps: ConsolidationDeps,
  existing: Memory,
  candidate: Candidate,
  judgement: Judgement,
): ConsolidationOutcome {
  const at = deps.clock.now().toISOString();
  const decision = decideContradiction(claimOf(existing), {
    evidence: candidate.evidence,
    confirmations: 0,
    importance: candidate.importance,
    statedAt: at,
  });
  const why = `${judgement.reason}; ${decision.rule}`;
  let receipt: Receipt | undefined;
  // Receipts go out after the commit, so a failing listener can never roll a write back.
  const outcome = deps.database.transaction((): ConsolidationOutcome => {
    const incoming = deps.memories.insert(candidate, at, "created");
    deps.index.upsert({ namespace: "memory", id: incoming.id, scope: incoming.userKey, text: incoming.text });
    if (decision.winner === "incoming") {
      const previous = supersede(deps, existing, incoming, at, candidate.validFrom ?? at);
      receipt = {
        kind: "updated",
        userKey: incoming.userKey,
        text: `Updated: ${incoming.text} (was: ${existing.text})`,
      };
      return { action: "superseded", memory: incoming, previous, rule: why };
    }
    if (decision.winner === "existing") {
      const rejected = supersede(deps, incoming, existing, at, at);
      deps.memories.addVersion(existing.id, {
        text: candidate.text,
        kind: candidate.kind,
        importance: candidate.importance,
        evidence: candidate.evidence,
        reason: "contradicted",
        sessionId: candidate.provenance.sessionId,
        messageIds: candidate.provenance.messageIds,
        quote: candidate.provenance.quote,
        at,
      });
      const kept = deps.memories.update(existing.id, { contradictions: existing.contradictions + 1 }, at);
      receipt = {
        kind: "updated",
        userKey: kept.userKey,
        text: `Kept: ${kept.text} (set aside the contradicting "${candidate.text}": ${decision.rule})`,
      };
      return { action: "kept-existing", memory: kept, rejected, rule: why };
    }
    deps.memories.addConflict(incoming.userKey, existing.id, incoming.id, why, at);
    receipt = {
      kind: "remembered",
      userKey: incoming.userKey,
      text: `Remembered: ${incoming.text} (conflicts with: ${existing.text}; see \`mercury memory conflicts\`)`,
    };
    return { action: "conflict", memory: incoming, other: existing, rule: why };
  })();
  if (receipt) deps.emit(receipt);
  return outcome;
}

/** The loser stays, with its validity closed and a pointer to what replaced it. */
function supersede(
  deps: ConsolidationDeps,
  loser: Memory,
  winner: Memory,
  at: string,
  validTo: string,
): Memory {
  deps.memories.addVersion(loser.id, {
    text: loser.text,
    kind: loser.kind,
    importance: loser.importance,
    evidence: loser.evidence,
    reason: "superseded",
    sessionId: winner.sourceSessionId,
    messageIds: winner.sourceMessageIds,
    quote: winner.sourceQuote,
    at,
  });
  deps.memories.resolveConflictsOf(loser.id, at);
  return deps.memories.update(
    loser.id,
    {
      supersededAt: at,
      supersededBy: winner.id,
      validTo,
      contradictions: loser.contradictions + 1,
    },
    at,
  );
}

function create(deps: ConsolidationDeps, candidate: Candidate): ConsolidationOutcome {
  const at = deps.clock.now().toISOString();
  const memory = deps.database.transaction(() => {
    const inserted = deps.memories.insert(candidate, at, "created");
    deps.index.upsert({ namespace: "memory", id: inserted.id, scope: inserted.userKey, text: inserted.text });
    return inserted;
  })();
  deps.emit({ kind: "remembered", userKey: memory.userKey, text: `Remembered: ${memory.text}` });
  return { action: "created", memory };
}
