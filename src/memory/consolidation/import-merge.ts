import type { Candidate, Memory, Receipt } from "../store/types.js";
import {
  type ConsolidationDeps,
  claimOf,
  confirm,
  judgeAll,
  pickDecision,
  similarMemories,
  supersede,
} from "./consolidate.js";
import type { Judgement } from "./judge.js";
import { type Decision, decideContradiction, sourceRank } from "./rule.js";

/** What consolidation did with the imported memories that met memories already in the store. */
export interface ImportConsolidation {
  confirmed: number;
  superseded: number;
  keptExisting: number;
  conflicts: number;
  queued: number;
}

function candidateOf(memory: Memory): Candidate {
  return {
    userKey: memory.userKey,
    project: memory.project,
    kind: memory.kind,
    text: memory.text,
    evidence: memory.evidence,
    importance: memory.importance,
    provenance: {
      sessionId: memory.sourceSessionId,
      messageIds: memory.sourceMessageIds,
      quote: memory.sourceQuote,
    },
    validFrom: memory.validFrom,
  };
}

/**
 * Consolidates freshly imported current memories against the memories that were stored before the
 * import, with the rules a new fact meets (candidates from search, the model judge when configured,
 * the guarded conservative rules otherwise). The import itself stays a lossless raw write; this pass
 * meets the two sets (and hand-written entries with the file's earlier ones), so importing an export
 * into an empty store changes nothing.
 */
export async function consolidateImported(
  deps: ConsolidationDeps,
  importedIds: readonly number[],
  wasStored: (memory: Memory) => boolean,
  signal?: AbortSignal,
): Promise<ImportConsolidation> {
  const summary: ImportConsolidation = {
    confirmed: 0,
    superseded: 0,
    keptExisting: 0,
    conflicts: 0,
    queued: 0,
  };
  // Hand-written entries (a Markdown bullet without its record: evidence "imported") were never
  // consolidated, so they also meet the entries of this file before them ("I am allergic to
  // penicillin" / "I'm allergic to penicillin" in one list). Exported records were, and do not.
  const earlier = new Set<number>();
  const handWritten = (memory: Memory) => memory.evidence === "imported";
  for (const id of importedIds) {
    signal?.throwIfAborted();
    const imported = deps.memories.get(id);
    if (!imported || imported.supersededAt !== null) continue;
    earlier.add(imported.id);
    const neighbours = await similarMemories(
      deps,
      candidateOf(imported),
      (memory) =>
        wasStored(memory) ||
        (memory.id !== imported.id &&
          earlier.has(memory.id) &&
          (handWritten(imported) || handWritten(memory))),
    );
    if (neighbours.length === 0) continue;
    const judged = await judgeAll(deps, imported.text, neighbours, signal, imported.userKey);
    if (!judged.ok) {
      // Never a guess: both stay and the pairs wait for the judge, as for a new fact.
      deps.queue.enqueue(
        imported.id,
        imported.userKey,
        neighbours.map((memory) => memory.id),
        judged.problem,
        deps.clock.now().toISOString(),
      );
      summary.queued += 1;
      continue;
    }
    const pick = pickDecision(neighbours, judged.judgements);
    if (!pick) continue;
    if (pick.judgement.verdict === "same") {
      const kept = confirm(deps, pick.existing, candidateOf(imported), pick.judgement).memory;
      mergeInto(deps, imported, kept);
      summary.confirmed += 1;
      continue;
    }
    const outcome = resolveImported(
      deps,
      pick.existing,
      imported,
      pick.judgement.verdict,
      pick.judgement.reason,
    );
    summary[outcome] += 1;
  }
  return summary;
}

/** The imported copy of a confirmed memory stops being current; its row and history stay, pointing at the kept one. */
function mergeInto(deps: ConsolidationDeps, imported: Memory, kept: Memory): void {
  const at = deps.clock.now().toISOString();
  deps.database.transaction(() => {
    deps.memories.addVersion(imported.id, {
      text: imported.text,
      kind: imported.kind,
      importance: imported.importance,
      evidence: imported.evidence,
      reason: "confirmed",
      sessionId: imported.sourceSessionId,
      messageIds: imported.sourceMessageIds,
      quote: imported.sourceQuote,
      at,
    });
    deps.memories.update(imported.id, { supersededAt: at, supersededBy: kept.id }, at);
  })();
}

function resolveImported(
  deps: ConsolidationDeps,
  existing: Memory,
  imported: Memory,
  verdict: Judgement["verdict"],
  reason: string,
): "superseded" | "keptExisting" | "conflicts" {
  const at = deps.clock.now().toISOString();
  // The same rule as for a new fact, with the imported memory's own evidence, confirmations and date:
  // an old backup does not override what was said since.
  const ruled = decideContradiction(claimOf(existing), claimOf(imported));
  const decision: Decision =
    verdict === "update" || (ruled.winner === "existing" && sourceRank(imported.evidence) === 0)
      ? ruled
      : { winner: "undecidable", rule: "a contradiction is for the user to settle" };
  const why = `${reason}; ${decision.rule}`;
  let receipt: Receipt | undefined;
  const outcome = deps.database.transaction(() => {
    if (decision.winner === "incoming") {
      supersede(deps, existing, imported, at, imported.validFrom ?? at);
      receipt = {
        kind: "updated",
        userKey: imported.userKey,
        memoryId: imported.id,
        text: `Updated: ${imported.text} (was: ${existing.text})`,
      };
      return "superseded" as const;
    }
    if (decision.winner === "existing") {
      supersede(deps, imported, existing, at, at);
      receipt = {
        kind: "updated",
        userKey: existing.userKey,
        memoryId: existing.id,
        text: `Kept: ${existing.text} (set aside the imported "${imported.text}": ${decision.rule})`,
      };
      return "keptExisting" as const;
    }
    deps.memories.addConflict(imported.userKey, existing.id, imported.id, why, at);
    receipt = {
      kind: "remembered",
      userKey: imported.userKey,
      memoryId: imported.id,
      text: `Imported: ${imported.text} (conflicts with: ${existing.text}; see \`mercury memory conflicts\`)`,
    };
    return "conflicts" as const;
  })();
  // Receipts go out after the commit, so a failing listener can never roll a write back.
  if (receipt) deps.emit(receipt);
  return outcome;
}
