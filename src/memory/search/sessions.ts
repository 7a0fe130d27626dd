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
 * Its local, bounded form below (smoothByNeighbours) is on by default; with it, session evidence
 * adds nothing on LoCoMo either (BENCHMARKS.md, fourth pass).
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

/**
 * Neighbour smoothing: a turn's score is smoothed toward its best neighbouring candidate's, the more
 * so the shorter the turn. A conversation's answer is often a short reply ("I've had them for 3 years
 * now!") to the turn that names the topic; its own words barely match the question, and its context
 * (turn-context.ts) adds the neighbour's words only at CONTEXT_WEIGHT. In the spirit of cluster-based
 * smoothing of document scores (Kurland & Lee 2004) with a Dirichlet-style share (Zhai & Lafferty
 * 2001): a turn of BM25 length L (own words plus weighted context) moves a share mu / (L + mu) of the
 * way up to the score of a candidate of the same session right next to it, never down and never
 * above that neighbour:
 *
 *   score' = max(score, (1 - share) x score + share x best adjacent score),  share = mu / (L + mu)
 *
 * A long turn (a user's paragraph, an assistant's answer) says enough by itself and keeps nearly its
 * own score; a short one leans on what it answers. Unlike session evidence (boostBySession), a turn
 * gains only from its immediate neighbours and only up to them, so one strong session does not lift
 * every turn it holds above the other sessions' (LongMemEval's multi-session questions).
 *
 * NEIGHBOUR_MU = 10 terms, one global value (the turn-length scale at which a reply is "short");
 * measured with 5, 7, 10, 20 and 40 on both dev sets, and additive or unnormalized forms, in
 * BENCHMARKS.md. Turns are adjacent when their owning rows' ids (episode ids, recorded in order) are
 * consecutive within one session key; candidates without a session key are left as they are.
 */
export const NEIGHBOUR_MU = 10;

/** Where a candidate stands in its conversation. */
export interface TurnPosition {
  session: string;
  /** Increases by one from a turn to the next of its session (an episode's id). */
  order: number;
  /** BM25 length of the document (own terms plus weighted context). */
  length: number;
}

export function smoothByNeighbours(
  results: readonly LexicalResult[],
  positionOf: (documentId: number) => TurnPosition | undefined,
  mu = NEIGHBOUR_MU,
): LexicalResult[] {
  if (mu <= 0 || results.length < 2) return [...results];
  const positions = results.map((result) => positionOf(result.documentId));
  const scoreAt = new Map<string, number>();
  const at = (position: TurnPosition, order: number) => `${position.session}\u0000${order}`;
  results.forEach((result, index) => {
    const position = positions[index];
    if (position !== undefined) scoreAt.set(at(position, position.order), result.score);
  });
  const adjusted = results.map((result, index) => {
    const position = positions[index];
    if (position === undefined) return { documentId: result.documentId, score: result.score, index };
    const neighbour = Math.max(
      scoreAt.get(at(position, position.order - 1)) ?? 0,
      scoreAt.get(at(position, position.order + 1)) ?? 0,
    );
    const share = mu / (Math.max(0, position.length) + mu);
    const score = Math.max(result.score, (1 - share) * result.score + share * neighbour);
    return { documentId: result.documentId, score, index };
  });
  adjusted.sort((a, b) => b.score - a.score || a.index - b.index);
  return adjusted.map(({ documentId, score }) => ({ documentId, score }));
}
