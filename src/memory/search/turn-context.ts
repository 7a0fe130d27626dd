import type { ContextPart } from "./types.js";

/**
 * A conversation turn's context: the turns around it in its session, which say what a short turn
 * ("Yes, last Tuesday!") is about. The live store (store/episodes.ts) and the retrieval bench build
 * a turn's context here, so the benchmark measures the documents users get.
 *
 * Two turns each side: with the context capped (bm25.ts CONTEXT_CAP), the second neighbour adds the
 * topic's words without letting a long answer take over. The turns after a turn count as much as
 * those before it: only the preceding ones cost LongMemEval dev 0.012 / 0.028 recall@10 / nDCG@10 and
 * LoCoMo dev 0.007 recall@10 (ablation in BENCHMARKS.md), so the live store re-indexes the last turns
 * of a session when a new one arrives.
 */
export const CONTEXT_WINDOW = 2;
/**
 * A neighbour at distance d weighs CONTEXT_DECAY^(d - 1) of the nearest ones: nearer turns say more
 * about the turn (both sets' nDCG@10 +0.002 to +0.005, recall@10 unchanged).
 */
export const CONTEXT_DECAY = 0.7;

/** The context parts of a turn from its neighbours' texts, each list nearest first. */
export function turnContext(
  before: readonly string[],
  after: readonly string[],
  window = CONTEXT_WINDOW,
  decay = CONTEXT_DECAY,
): ContextPart[] {
  const parts: ContextPart[] = [];
  for (const side of [before, after]) {
    side.slice(0, window).forEach((text, distance) => {
      if (text.trim() !== "") parts.push({ text, weight: decay ** distance });
    });
  }
  return parts;
}
