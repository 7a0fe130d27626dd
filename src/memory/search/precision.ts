import type { LexicalResult } from "./search-index.js";
import type { SpeakerRole } from "./types.js";

/**
 * Second-stage ordering of the best lexical candidates, for first-rank precision. BM25 treats a
 * document as a bag of words, matched in its own text or its context alike; three signals it cannot
 * see separate the document that says what was asked from one that merely shares its words:
 *
 *   proximity: consecutive content words of the query ("pottery class", "support group") that
 *              also stand within PROXIMITY_WINDOW positions of each other in the document's own
 *              text. Each such pair adds proximity × min(idf of the two words), in BM25 units (a
 *              matched term adds about its idf), as in term-proximity models (Büttcher et al. 2006;
 *              Metzler & Croft's sequential dependence model).
 *   coverage:  the idf-weighted share of the query's words found in the document's own text rather
 *              than only in its context (neighbouring turns). It adds coverage × that share × the
 *              query's strongest idf, so a turn that matches by itself outranks one that matches
 *              only through its neighbours, while those stay in the list (recall is unchanged).
 *   speaker:   a query that names a person is most often answered by what that person said, not by
 *              what others said to or about them. A document whose speaker field (IndexedDocument
 *              .speaker) shares a term with the query adds speaker × the query's strongest idf, the
 *              same scale as matching one more salient word. Documents without a speaker get 0.
 *   role:      the same for the pronouns of a question to the assistant (query.ts addressedRole):
 *              "I"/"my" name the user, "you" the assistant, so a document whose role
 *              (IndexedDocument.role) is the one addressed adds role × the query's strongest idf.
 *              Documents without a role (conversations between people) get 0.
 *
 * Only the first `depth` candidates are reordered (default: the whole pool); the rest keep their
 * order below them. Parameters are global, fixed values, never fitted per query or per corpus.
 *
 * Defaults: speaker 1 (one more salient word, the natural unit), proximity and coverage 0. Measured
 * on LoCoMo dev (nDCG@10 / recall@10; base 0.572 / 0.760): speaker alone 0.619 / 0.785; proximity
 * and coverage at 0.5 each add 0.009 without speaker but 0.003 with it, not worth reading and
 * analyzing every candidate's text on each query (about +3 ms at 100k memories). They stay
 * available for corpora whose documents carry context but no speaker.
 */
export interface PrecisionParameters {
  depth: number;
  proximity: number;
  coverage: number;
  speaker: number;
  role: number;
  window: number;
  /**
   * A document's bonus is at most its own score before the reordering (session 11): a signal the
   * query's words do not back (a named speaker, an addressed role) can double a document's lexical
   * evidence but not stand in for it. Set by the default RerankGuard, "bonus-cap".
   */
  capBonus?: boolean;
}

/** What the reordering reads of one candidate. */
export interface PrecisionDocument {
  /** Analyzed terms of the document's own text, in order (no context). */
  terms: readonly string[];
  /** Analyzed terms of its speaker's name; empty when it has none. */
  speaker: readonly string[];
  /** Its speaker's role; undefined when it has none. */
  role?: SpeakerRole | undefined;
}

export const PROXIMITY_WINDOW = 3;

export const DEFAULT_PRECISION: PrecisionParameters = {
  depth: Number.POSITIVE_INFINITY,
  proximity: 0,
  coverage: 0,
  speaker: 1,
  role: 1,
  window: PROXIMITY_WINDOW,
};

/** Adjacent pairs of distinct query terms, in query order. */
export function queryPairs(queryTerms: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  const seen = new Set<string>();
  for (let index = 0; index + 1 < queryTerms.length; index++) {
    const first = queryTerms[index] as string;
    const second = queryTerms[index + 1] as string;
    if (first === second) continue;
    const key = `${first}\u0000${second}`;
    if (seen.has(key)) continue;
    seen.add(key);
    pairs.push([first, second]);
  }
  return pairs;
}

/** Whether the two terms occur, in either order, within `window` positions of each other. */
export function occurNear(
  documentTerms: readonly string[],
  first: string,
  second: string,
  window: number,
): boolean {
  let lastFirst = Number.NEGATIVE_INFINITY;
  let lastSecond = Number.NEGATIVE_INFINITY;
  for (let position = 0; position < documentTerms.length; position++) {
    const term = documentTerms[position];
    if (term === first) {
      if (position - lastSecond <= window) return true;
      lastFirst = position;
    } else if (term === second) {
      if (position - lastFirst <= window) return true;
      lastSecond = position;
    }
  }
  return false;
}

/** The bonus, in BM25 units, of one document for this query (analyzed query terms, in order). */
export function precisionBonus(
  queryTerms: readonly string[],
  document: PrecisionDocument,
  idf: (term: string) => number,
  parameters: PrecisionParameters = DEFAULT_PRECISION,
  addressed?: SpeakerRole,
): number {
  const unique = [...new Set(queryTerms)];
  if (unique.length === 0) return 0;
  const weights = unique.map(idf);
  const strongest = Math.max(0, ...weights);
  let bonus = 0;
  if (parameters.proximity > 0) {
    for (const [first, second] of queryPairs(queryTerms)) {
      if (occurNear(document.terms, first, second, parameters.window)) {
        bonus += parameters.proximity * Math.min(idf(first), idf(second));
      }
    }
  }
  if (parameters.coverage > 0) {
    const own = new Set(document.terms);
    let total = 0;
    let found = 0;
    unique.forEach((term, index) => {
      const weight = weights[index] as number;
      total += weight;
      if (own.has(term)) found += weight;
    });
    if (total > 0) bonus += parameters.coverage * (found / total) * strongest;
  }
  if (parameters.speaker > 0 && document.speaker.some((term) => unique.includes(term))) {
    bonus += parameters.speaker * strongest;
  }
  if (parameters.role > 0 && addressed !== undefined && document.role === addressed) {
    bonus += parameters.role * strongest;
  }
  return bonus;
}

/**
 * Reorders the first `depth` results by score + bonus; results beyond keep their place. Stable:
 * equal adjusted scores keep the first-stage order.
 */
export function rerankForPrecision(
  results: readonly LexicalResult[],
  queryTerms: readonly string[],
  documentOf: (documentId: number) => PrecisionDocument,
  idf: (term: string) => number,
  parameters: PrecisionParameters = DEFAULT_PRECISION,
  addressed?: SpeakerRole,
): LexicalResult[] {
  const head = results.slice(0, parameters.depth).map((result, order) => ({
    result,
    order,
    adjusted:
      result.score +
      bounded(
        precisionBonus(queryTerms, documentOf(result.documentId), idf, parameters, addressed),
        result.score,
        parameters,
      ),
  }));
  head.sort((a, b) => b.adjusted - a.adjusted || a.order - b.order);
  return [
    ...head.map(({ result, adjusted }) => ({ documentId: result.documentId, score: adjusted })),
    ...results.slice(parameters.depth),
  ];
}

function bounded(bonus: number, score: number, parameters: PrecisionParameters): number {
  return parameters.capBonus === true ? Math.min(bonus, Math.max(0, score)) : bonus;
}

/**
 * How the stages after exact BM25 (related terms, feedback, session evidence, neighbour smoothing,
 * the reordering above) may change BM25's order (session 11: on data it was never tuned on, a
 * ranking must not end below the first stage's):
 *
 *   off:   their order is final (the behaviour before session 11).
 *   cap:   a document's gain from them is at most its own BM25 score, so a document keeps at least
 *          half its final score from the query's own words: no stage lifts a weak lexical match
 *          over a strong one by itself.
 *   bonus-cap: only the reordering above is bounded (PrecisionParameters.capBonus): its bonus is at
 *          most the document's score before it; smoothing and related terms keep their own bounds.
 *   fuse:  reciprocal-rank fusion of BM25's order and theirs (RRF_K as in fusion.ts), so a document
 *          either order puts high stays high.
 *
 * Default "bonus-cap" (2026-12-02): on the synthetic corpus (scripts/retrieval-synthetic.mjs), whose
 * questions name the wrong speaker a quarter of the time, it moves nDCG@10 0.764 -> 0.783 and recall@10
 * 0.983 -> 1.000; LoCoMo dev unchanged, LongMemEval dev nDCG +0.002. "cap" gains more there (0.801) but
 * costs LoCoMo 0.014 recall@10 (short replies lifted by smoothing have little score of their own),
 * "fuse" costs both dev sets (BENCHMARKS.md, session 11).
 */
export type RerankGuard = "off" | "cap" | "fuse" | "bonus-cap";

export const DEFAULT_RERANK_GUARD: RerankGuard = "bonus-cap";

const GUARD_RRF_K = 10;

/**
 * Applies the guard to the reranked list, given the first stage's (exact BM25 with the query's own
 * words). Documents the first stage does not hold (none today: every stage reorders its pool) keep
 * their reranked score under "cap" and count one list under "fuse".
 */
export function guardReranking(
  first: readonly LexicalResult[],
  reranked: readonly LexicalResult[],
  guard: RerankGuard,
): LexicalResult[] {
  if (guard === "off" || guard === "bonus-cap" || reranked.length < 2) return [...reranked];
  const firstScore = new Map(first.map((result) => [result.documentId, result.score]));
  const firstRank = new Map(first.map((result, index) => [result.documentId, index + 1]));
  const adjusted = reranked.map((result, index) => {
    let score: number;
    if (guard === "cap") {
      const own = firstScore.get(result.documentId);
      score = own === undefined ? result.score : own + Math.min(Math.max(0, result.score - own), own);
    } else {
      const rank = firstRank.get(result.documentId);
      score = 1 / (GUARD_RRF_K + index + 1) + (rank === undefined ? 0 : 1 / (GUARD_RRF_K + rank));
    }
    return { documentId: result.documentId, score, index };
  });
  adjusted.sort((a, b) => b.score - a.score || a.index - b.index);
  return adjusted.map(({ documentId, score }) => ({ documentId, score }));
}
