import type { LexicalResult } from "./search-index.js";

/**
 * Session-level evidence. A question about something said in a conversation is usually answered by
 * a session that talks about it at length, not by one stray turn that shares a word with it: a turn
 * whose session holds other good candidates is more likely the one asked about. So each candidate
 * gains SESSION_WEIGHT × the best score among the other candidates of its session (same pool, BM25
 * units), in the spirit of passage retrieval that mixes a passage's score with its document's
 * (Callan 1994; Bendersky & Kurland 2008). Max rather than sum: a session with many weak matches
 * (a long chat that repeats a common word) must not outweigh one strong one. Candidates without a
 * session key gain nothing.
 *
 * One fixed weight for all data. Measured on both full dev sets (ablation in BENCHMARKS.md): with
 * the context weighted by distance and no word-family query variants, recall@10 / nDCG@10 LoCoMo
 * +0.007 / +0.005 but LongMemEval 0 / −0.004, so it still has to earn its place there. 0.3, 0.1, 0.05,
 * a sum of the session's scores and two forms built on the session's coverage of the query's terms
 * did no better on LongMemEval, and a session-diversity penalty (each turn already placed from a
 * session lowering the next one's score) hurt both sets.
 */
export const SESSION_WEIGHT = 0.15;

export function boostBySession(
  results: readonly LexicalResult[],
  sessionOf: (documentId: number) => string | undefined,
  weight = SESSION_WEIGHT,
): LexicalResult[] {
  if (weight <= 0 || results.length < 2) return [...results];
  const sessions = results.map((result) => sessionOf(result.documentId));
  // The two best scores of each session: a candidate's best *other* is the first unless it is it.
  const best = new Map<string, { first: number; firstIndex: number; second: number }>();
  results.forEach((result, index) => {
    const session = sessions[index];
    if (session === undefined) return;
    const entry = best.get(session);
    if (!entry) best.set(session, { first: result.score, firstIndex: index, second: 0 });
    else if (result.score > entry.first) {
      entry.second = entry.first;
      entry.first = result.score;
      entry.firstIndex = index;
    } else if (result.score > entry.second) entry.second = result.score;
  });
  const adjusted = results.map((result, index) => {
    const session = sessions[index];
    const entry = session === undefined ? undefined : best.get(session);
    const other = entry === undefined ? 0 : entry.firstIndex === index ? entry.second : entry.first;
    return { documentId: result.documentId, score: result.score + weight * other, index };
  });
  adjusted.sort((a, b) => b.score - a.score || a.index - b.index);
  return adjusted.map(({ documentId, score }) => ({ documentId, score }));
}
