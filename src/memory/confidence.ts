import type { EvidenceKind } from "./store/types.js";

/**
 * Confidence in a memory, derived only from its evidence. It is computed when read and never
 * stored, and never taken from a model.
 *
 *   confidence = sigmoid( logit(base[evidence])
 *                         + 0.6 · ln(1 + confirmations)
 *                         − 0.9 · ln(1 + contradictions) )
 *                · freshness
 *
 *   freshness  = 0.6 + 0.4 · 2^(−days since last confirmation / 365)
 *                (days counted from creation when never confirmed; 1 when just confirmed,
 *                 0.8 after a year, never below 0.6: old facts are doubted, not discarded)
 *
 *   base: manual 0.95, user-confirmed 0.92, user-stated 0.88, imported 0.75,
 *         agent-observed 0.65, inferred 0.5
 *
 * Confirmations and contradictions act on the log-odds with diminishing returns, so the tenth
 * confirmation adds less than the first and one contradiction costs more than one confirmation
 * gains. The result is in [0, 1] and rounded to two decimals for display stability.
 */
export const EVIDENCE_BASE: Readonly<Record<EvidenceKind, number>> = {
  manual: 0.95,
  "user-confirmed": 0.92,
  "user-stated": 0.88,
  imported: 0.75,
  "agent-observed": 0.65,
  inferred: 0.5,
};

export interface ConfidenceEvidence {
  evidence: EvidenceKind;
  confirmations: number;
  contradictions: number;
  /** ISO time of the last confirmation, or of creation when never confirmed. */
  lastConfirmedAt: string;
}

const DAY_MS = 86_400_000;

export function confidence(input: ConfidenceEvidence, now: Date): number {
  if (!Number.isInteger(input.confirmations) || input.confirmations < 0) {
    throw new RangeError(`confirmations must be a non-negative integer, got ${input.confirmations}`);
  }
  if (!Number.isInteger(input.contradictions) || input.contradictions < 0) {
    throw new RangeError(`contradictions must be a non-negative integer, got ${input.contradictions}`);
  }
  const confirmedAt = Date.parse(input.lastConfirmedAt);
  if (Number.isNaN(confirmedAt))
    throw new RangeError(`lastConfirmedAt is not a date: ${input.lastConfirmedAt}`);
  const base = EVIDENCE_BASE[input.evidence];
  const logOdds =
    Math.log(base / (1 - base)) +
    0.6 * Math.log1p(input.confirmations) -
    0.9 * Math.log1p(input.contradictions);
  const support = 1 / (1 + Math.exp(-logOdds));
  const days = Math.max(0, (now.getTime() - confirmedAt) / DAY_MS);
  const freshness = 0.6 + 0.4 * 2 ** (-days / 365);
  return Math.round(support * freshness * 100) / 100;
}
