import type { Memory, Receipt } from "../store/types.js";
import { type ConsolidationDeps, judgeAll, pickDecision } from "./consolidate.js";
import { decideContradiction } from "./rule.js";

export interface DrainSummary {
  judged: number;
  stillWaiting: number;
}

function claimOf(memory: Memory) {
  return {
    evidence: memory.evidence,
    confirmations: memory.confirmations,
    importance: memory.importance,
    statedAt: memory.lastConfirmedAt ?? memory.recordedAt,
  };
}

/**
 * Judges the pairs that waited (the judge was down or answered invalid JSON twice). Both memories
 * stayed current meanwhile; now the verdict is applied to the stored pair: same -> the waiting one
 * folds into the older (a confirmation), update -> the contradiction rule picks the current one,
 * contradiction -> a conflict for the user, different -> nothing.
 */
export async function drainJudgeQueue(deps: ConsolidationDeps, signal?: AbortSignal): Promise<DrainSummary> {
  const summary: DrainSummary = { judged: 0, stillWaiting: 0 };
  if (!deps.judge) return { judged: 0, stillWaiting: deps.queue.count(null) };
  for (const pair of deps.queue.pending(200)) {
    if (signal?.aborted) break;
    const waiting = deps.memories.get(pair.memoryId);
    const found = deps.memories.getMany(pair.neighbourIds);
    const neighbours = pair.neighbourIds
      .map((id) => found.get(id))
      .filter(
        (memory): memory is Memory =>
          memory !== undefined && memory.supersededAt === null && memory.userKey === pair.userKey,
      );
    if (!waiting || waiting.supersededAt !== null || neighbours.length === 0) {
      deps.queue.done(pair.id);
      continue;
    }
    const judged = await judgeAll(deps, waiting.text, neighbours, signal, pair.userKey);
    if (!judged.ok) {
      deps.queue.failedAgain(pair.id, judged.problem);
      summary.stillWaiting++;
      continue;
    }
    summary.judged++;
    const pick = pickDecision(neighbours, judged.judgements);
    const at = deps.clock.now().toISOString();
    let receipt: Receipt | undefined;
    deps.database.transaction(() => {
      deps.queue.done(pair.id);
      if (!pick) return;
      const { existing, judgement } = pick;
      if (judgement.verdict === "contradiction") {
        deps.memories.addConflict(pair.userKey, existing.id, waiting.id, judgement.reason, at);
        receipt = {
          kind: "updated",
          userKey: pair.userKey,
          text: `Conflict found between memories #${existing.id} and #${waiting.id}; see \`mercury memory conflicts\``,
        };
        return;
      }
      let winner = existing;
      let loser = waiting;
      if (judgement.verdict === "update") {
        const decision = decideContradiction(claimOf(existing), claimOf(waiting));
        if (decision.winner === "undecidable") {
          deps.memories.addConflict(pair.userKey, existing.id, waiting.id, decision.rule, at);
          return;
        }
        if (decision.winner === "incoming") [winner, loser] = [waiting, existing];
      } else {
        deps.memories.update(
          existing.id,
          { confirmations: existing.confirmations + 1, lastConfirmedAt: at },
          at,
        );
      }
      deps.memories.addVersion(loser.id, {
        text: loser.text,
        kind: loser.kind,
        importance: loser.importance,
        evidence: loser.evidence,
        reason: judgement.verdict === "same" ? "confirmed" : "superseded",
        sessionId: winner.sourceSessionId,
        messageIds: winner.sourceMessageIds,
        quote: winner.sourceQuote,
        at,
      });
      deps.memories.resolveConflictsOf(loser.id, at);
      deps.memories.update(loser.id, { supersededAt: at, supersededBy: winner.id, validTo: at }, at);
      receipt = {
        kind: judgement.verdict === "same" ? "confirmed" : "updated",
        userKey: pair.userKey,
        text: `Judged later: memory #${loser.id} ${judgement.verdict === "same" ? "repeats" : "is replaced by"} #${winner.id}`,
      };
    })();
    if (receipt) deps.emit(receipt);
  }
  summary.stillWaiting = deps.queue.count(null);
  return summary;
}
