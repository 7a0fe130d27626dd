import type { EvidenceKind, Importance } from "../store/types.js";
import { isUserLevel } from "../store/types.js";

/**
 * The contradiction rule. Two claims contradict; which one is current?
 *
 * Source rank: user-level (manual, user-confirmed, user-stated) = 2; imported, agent-observed = 1;
 * inferred = 0.
 *
 *   1. A once-inferred claim (rank 0, no confirmation) never overturns a claim that is user-level
 *      or was confirmed at least once: the stored claim wins.
 *   2. Higher source rank wins.
 *   3. Same rank, both user-level: the more recent statement wins (people move, change their mind;
 *      the user's latest word about themselves is the truth).
 *   4. Same rank below user level: more confirmations win; then higher importance wins (weak
 *      evidence must not overturn a more important memory, nor a more important claim be lost).
 *   5. Otherwise undecidable: both are kept and listed as a conflict for the user to settle.
 *
 * The loser is superseded (valid_to and superseded_at set), never deleted.
 */
export interface Claim {
  evidence: EvidenceKind;
  confirmations: number;
  importance: Importance;
  /** When this claim was stated (ISO). */
  statedAt: string;
}

export type Decision =
  | { winner: "existing" | "incoming"; rule: string }
  | { winner: "undecidable"; rule: string };

export function sourceRank(evidence: EvidenceKind): 0 | 1 | 2 {
  if (isUserLevel(evidence)) return 2;
  if (evidence === "inferred") return 0;
  return 1;
}

const IMPORTANCE_ORDER: Readonly<Record<Importance, number>> = { low: 0, normal: 1, high: 2, critical: 3 };

export function decideContradiction(existing: Claim, incoming: Claim): Decision {
  const rankExisting = sourceRank(existing.evidence);
  const rankIncoming = sourceRank(incoming.evidence);
  if (
    rankIncoming === 0 &&
    incoming.confirmations === 0 &&
    (rankExisting === 2 || existing.confirmations >= 1)
  ) {
    return {
      winner: "existing",
      rule: "a single inference cannot overturn a user-stated or confirmed memory",
    };
  }
  if (
    rankExisting === 0 &&
    existing.confirmations === 0 &&
    (rankIncoming === 2 || incoming.confirmations >= 1)
  ) {
    return { winner: "incoming", rule: "a single inference gives way to a user-stated or confirmed claim" };
  }
  if (rankIncoming !== rankExisting) {
    return {
      winner: rankIncoming > rankExisting ? "incoming" : "existing",
      rule: "stronger source wins",
    };
  }
  if (rankIncoming === 2) {
    const newer = Date.parse(incoming.statedAt) >= Date.parse(existing.statedAt);
    return { winner: newer ? "incoming" : "existing", rule: "the user's most recent statement wins" };
  }
  if (incoming.confirmations !== existing.confirmations) {
    return {
      winner: incoming.confirmations > existing.confirmations ? "incoming" : "existing",
      rule: "more confirmations win",
    };
  }
  const importanceDelta = IMPORTANCE_ORDER[incoming.importance] - IMPORTANCE_ORDER[existing.importance];
  if (importanceDelta !== 0) {
    return { winner: importanceDelta > 0 ? "incoming" : "existing", rule: "higher importance wins" };
  }
  return { winner: "undecidable", rule: "equal evidence on both sides" };
}
