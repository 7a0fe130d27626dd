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
 * Off by default since 2026-12-01 (SearchIndexOptions.sessionWeight; SESSION_WEIGHT is the weight it
 * has when turned on). With the role-aware reordering (precision.ts) it moved recall@10 / nDCG@10 by
 * +0.007 / +0.005 on LoCoMo dev but −0.008 / −0.011 on LongMemEval dev (multi-session −0.025 /
 * −0.015): LoCoMo's sessions each talk about one topic, so a turn of a session that matches well is
 * likely the one asked about, while LongMemEval's answer is one user turn inside a session about
 * something else and a distractor session about the question's topic outscores it. Tried and not
 * better on both: 0.3, 0.1, 0.05, a sum of the session's scores, two forms built on the session's
 * coverage of the query's terms, a session-diversity penalty, a boost bounded by the turn's own
 * score (LoCoMo's gain vanished), and the best other candidate of the same speaker only (LongMemEval
 * recall up, nDCG down). A feature that helps one set and hurts the other is not a default (issue 12).
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
