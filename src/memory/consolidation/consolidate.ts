import type { Clock } from "../../agent/clock.js";
import type { SqliteDatabase } from "../../storage/database.js";
import { EVIDENCE_BASE } from "../confidence.js";
import type { MemoryModel } from "../extraction/model.js";
import type { JobRepository } from "../store/jobs.js";
import type { JudgeQueue } from "../store/judge-queue.js";
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
import { analyze, cosineOfCounts, termCounts } from "../text/analyze.js";
import { changeInUsersWords } from "./change.js";
import { readEnded } from "./ended-phrases.js";
import { judgeByRules } from "./fallback.js";
import { covers } from "./features.js";
import { guardJudgement } from "./guards.js";
import type { Judgement } from "./judge.js";
import { neighbourQuery, pronounMayReferTo, sharesAttribute } from "./neighbours.js";
import { type Claim, type Decision, decideContradiction, sourceRank } from "./rule.js";

export interface ConsolidationDeps {
  database: SqliteDatabase;
  memories: MemoryRepository;
  jobs: JobRepository;
  queue: JudgeQueue;
  index: MemoryIndex;
  clock: Clock;
  emit(receipt: Receipt): void;
  /**
   * When set, the model judges same/update/different/contradiction; when it fails (after one
   * repair) the pair waits in the judge queue. Without it, the conservative rules decide.
   */
  judge?: MemoryModel;
}

export type ConsolidationOutcome =
  | { action: "created"; memory: Memory; queued?: boolean }
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
  if (neighbours.length === 0) return create(deps, candidate);
  signal?.throwIfAborted();
  // The user's own quote may say a change the extraction's wording dropped ("I changed my mind…").
  const quote = candidate.evidence === "user-stated" ? candidate.provenance.quote : null;
  const judged = await judgeAll(deps, candidate.text, neighbours, signal, candidate.userKey, quote);
  if (!judged.ok) {
    // Never a guess: the candidate is kept as its own memory and the pairs wait for the judge.
    const outcome = create(deps, candidate);
    deps.queue.enqueue(
      outcome.memory.id,
      candidate.userKey,
      neighbours.map((memory) => memory.id),
      judged.problem,
      deps.clock.now().toISOString(),
    );
    return { ...outcome, queued: true };
  }
  const pick = pickDecision(neighbours, judged.judgements);
  if (!pick) return create(deps, candidate);
  if (pick.judgement.verdict === "same") return confirm(deps, pick.existing, candidate, pick.judgement);
  return resolve(deps, pick.existing, candidate, pick.judgement);
}

/** The first neighbour (most similar first) that is the same claim; else one updated; else one contradicted. */
export function pickDecision(
  neighbours: readonly Memory[],
  judgements: readonly Judgement[],
): { existing: Memory; judgement: Judgement } | undefined {
  for (const verdict of ["same", "update", "contradiction"] as const) {
    const index = judgements.findIndex((judgement) => judgement.verdict === verdict);
    const existing = neighbours[index];
    const judgement = judgements[index];
    if (index >= 0 && existing && judgement) return { existing, judgement };
  }
  return undefined;
}

type Judged = { ok: true; judgements: Judgement[] } | { ok: false; problem: string };

/** The model judges when configured (one batched call, one repair); otherwise the rules. Guards apply to both. */
export async function judgeAll(
  deps: Pick<ConsolidationDeps, "judge" | "jobs" | "clock">,
  text: string,
  neighbours: readonly Memory[],
  signal: AbortSignal | undefined,
  userKey = neighbours[0]?.userKey ?? "",
  quote: string | null = null,
): Promise<Judged> {
  const byRules = (): Judged => ({
    ok: true,
    judgements: neighbours.map((existing) => {
      const ruled = judgeByRules(text, existing.text);
      const usersWords =
        quote && ruled.verdict !== "same" && ruled.verdict !== "update"
          ? changeInUsersWords(quote, text, existing.text)
          : undefined;
      const judgement: Judgement =
        usersWords === undefined ? ruled : { verdict: "update", reason: usersWords, by: "rules" };
      return guardJudgement(judgement, text, existing.text, quote);
    }),
  });
  if (!deps.judge) return byRules();
  // The model judge's code (and its reply parsing) loads only when a model judges: a `memory add`
  // without one stays two module files lighter.
  const { judgeByModel } = await import("./judge.js");
  const result = await judgeByModel(
    deps.judge,
    text,
    neighbours.map((memory) => memory.text),
    signal,
  );
  if (result.ok) {
    return {
      ok: true,
      judgements: result.judgements.map((judgement, index) =>
        guardJudgement(judgement, text, neighbours[index]?.text ?? "", quote),
      ),
    };
  }
  deps.jobs.recordFailure({
    jobId: null,
    userKey,
    stage: "judge",
    rawOutput: result.raw,
    reason: result.unusable
      ? `${result.problem}; the model cannot be used, so the deterministic rules decided`
      : `${result.problem}; the pair waits in the judge queue`,
    createdAt: deps.clock.now().toISOString(),
  });
  // A provider that refuses for good (no credentials) is no judge at all: the conservative rules
  // decide, as without a model. A passing failure (down, invalid output) waits for the judge instead.
  if (result.unusable) return byRules();
  return { ok: false, problem: result.problem };
}

/** `lexicalSimilarity` of the candidate and of its ended reading to one stored text, the larger. */
function similarityTo(
  own: ReadonlyMap<string, number>,
  ownEnded: ReadonlyMap<string, number>,
  stored: ReadonlyMap<string, number>,
): number {
  return Math.max(cosineOfCounts(own, stored), cosineOfCounts(ownEnded, stored));
}

/** Current memories of the same person and project similar enough to judge; `accept` narrows them (imports). */
export async function similarMemories(
  deps: ConsolidationDeps,
  candidate: Candidate,
  accept: (memory: Memory) => boolean = () => true,
): Promise<Memory[]> {
  const hits = await deps.index.search(neighbourQuery(candidate.text), {
    namespace: "memory",
    scopes: [candidate.userKey],
    pool: 20,
  });
  const found = deps.memories.getMany(hits.map((hit) => hit.id));
  const project = candidate.project ?? null;
  // The candidate's words, and its words without a "no longer" marker, analyzed once for all hits.
  const own = termCounts(analyze(candidate.text));
  const endedText = readEnded(candidate.text).text;
  const ownEnded = termCounts(analyze(endedText));
  return hits
    .map((hit) => ({ hit, memory: found.get(hit.id) }))
    .filter(
      (entry): entry is { hit: (typeof hits)[number]; memory: Memory } =>
        entry.memory !== undefined &&
        entry.memory.userKey === candidate.userKey &&
        entry.memory.supersededAt === null &&
        (entry.memory.project ?? null) === project &&
        accept(entry.memory),
    )
    .map(({ hit, memory }) => ({
      memory,
      // "J'ai arrêté de fumer" shares no word with "Je fume" until read as "je fume" without its marker.
      similarity: similarityTo(own, ownEnded, termCounts(analyze(memory.text))),
      // A close vector neighbour (synonyms, paraphrase) is judged even with little word overlap.
      vectorNeighbour: hit.vectorRank !== null && hit.vectorRank <= VECTOR_NEIGHBOURS,
    }))
    .filter(
      (entry) =>
        entry.similarity >= MIN_SIMILARITY ||
        entry.vectorNeighbour ||
        sharesAttribute(candidate.text, entry.memory.text) ||
        pronounMayReferTo(candidate.text, entry.memory.text),
    )
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, NEIGHBOURS)
    .map((entry) => entry.memory);
}

function stronger(a: EvidenceKind, b: EvidenceKind): EvidenceKind {
  return EVIDENCE_BASE[b] > EVIDENCE_BASE[a] ? b : a;
}

export function confirm(
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
  // A new wording never drops what the stored one held ("likes sushi" keeps "likes sushi and ramen").
  const takeWording =
    (isUserLevel(candidate.evidence) || !isUserLevel(existing.wordingEvidence)) &&
    covers(candidate.text, existing.text);
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
    // Every wording of a confirmed claim stays findable, even the one not kept for display.
    const wordings = covers(updated.text, candidate.text)
      ? updated.text
      : `${updated.text}\n${candidate.text}`;
    if (wordings !== existing.text) {
      deps.index.upsert({ namespace: "memory", id: updated.id, scope: updated.userKey, text: wordings });
    }
    return updated;
  })();
  deps.emit({
    kind: "confirmed",
    userKey: memory.userKey,
    memoryId: memory.id,
    text:
      memory.text === existing.text
        ? `Confirmed: ${memory.text}`
        : `Confirmed: ${memory.text} (was worded: ${existing.text})`,
  });
  return { action: "confirmed", memory, judgement };
}

export function claimOf(memory: Memory): Claim {
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
  const ruled = decideContradiction(claimOf(existing), {
    evidence: candidate.evidence,
    confirmations: 0,
    importance: candidate.importance,
    statedAt: at,
  });
  // Only an "update" replaces anything. A contradiction is shown to the user as a conflict, except
  // that an unconfirmed inference is set aside against what the user said (it never supersedes it).
  const decision: Decision =
    judgement.verdict === "update" || (ruled.winner === "existing" && sourceRank(candidate.evidence) === 0)
      ? ruled
      : { winner: "undecidable", rule: "a contradiction is for the user to settle" };
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
        memoryId: incoming.id,
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
        memoryId: kept.id,
        text: `Kept: ${kept.text} (set aside the contradicting "${candidate.text}": ${decision.rule})`,
      };
      return { action: "kept-existing", memory: kept, rejected, rule: why };
    }
    deps.memories.addConflict(incoming.userKey, existing.id, incoming.id, why, at);
    receipt = {
      kind: "remembered",
      userKey: incoming.userKey,
      memoryId: incoming.id,
      text: `Remembered: ${incoming.text} (conflicts with: ${existing.text}; see \`mercury memory conflicts\`)`,
    };
    return { action: "conflict", memory: incoming, other: existing, rule: why };
  })();
  if (receipt) deps.emit(receipt);
  return outcome;
}

/** The loser stays, with its validity closed and a pointer to what replaced it. */
export function supersede(
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

function create(deps: ConsolidationDeps, candidate: Candidate): { action: "created"; memory: Memory } {
  const at = deps.clock.now().toISOString();
  const memory = deps.database.transaction(() => {
    const inserted = deps.memories.insert(candidate, at, "created");
    deps.index.upsert({ namespace: "memory", id: inserted.id, scope: inserted.userKey, text: inserted.text });
    return inserted;
  })();
  deps.emit({
    kind: "remembered",
    userKey: memory.userKey,
    memoryId: memory.id,
    text: `Remembered: ${memory.text}`,
  });
  return { action: "created", memory };
}
