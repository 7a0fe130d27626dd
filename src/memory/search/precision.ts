import type { LexicalResult } from "./lexical.js";

/**
 * Second-stage ordering of the best lexical candidates, for first-rank precision. BM25 treats a
 * document as a bag of words, matched in its own text or its context alike; two signals it cannot
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
 *
 * Only the first `depth` candidates are reordered; the rest keep their order below them. Parameters
 * are global, fixed values, never fitted per query or per corpus.
 */
export interface PrecisionParameters {
  depth: number;
  proximity: number;
  coverage: number;
  window: number;
}

export const PROXIMITY_WINDOW = 3;

export const DEFAULT_PRECISION: PrecisionParameters = {
  depth: 30,
  proximity: 0.5,
  coverage: 0.5,
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
export function occurNear(documentTerms: readonly string[], first: string, second: string, window: number): boolean {
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

/** The bonus, in BM25 units, of one document's own-text term sequence for this query. */
export function precisionBonus(
  queryTerms: readonly string[],
  documentTerms: readonly string[],
  idf: (term: string) => number,
  parameters: PrecisionParameters = DEFAULT_PRECISION,
): number {
  const unique = [...new Set(queryTerms)];
  if (unique.length === 0 || documentTerms.length === 0) return 0;
  let bonus = 0;
  if (parameters.proximity > 0) {
    for (const [first, second] of queryPairs(queryTerms)) {
      if (occurNear(documentTerms, first, second, parameters.window)) {
        bonus += parameters.proximity * Math.min(idf(first), idf(second));
      }
    }
  }
  if (parameters.coverage > 0) {
    const own = new Set(documentTerms);
    let total = 0;
    let found = 0;
    let strongest = 0;
    for (const term of unique) {
      const weight = idf(term);
      total += weight;
      strongest = Math.max(strongest, weight);
      if (own.has(term)) found += weight;
    }
    if (total > 0) bonus += parameters.coverage * (found / total) * strongest;
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
  ownTermsOf: (documentId: number) => readonly string[],
  idf: (term: string) => number,
  parameters: PrecisionParameters = DEFAULT_PRECISION,
): LexicalResult[] {
  const head = results.slice(0, parameters.depth).map((result, order) => ({
    result,
    order,
    adjusted: result.score + precisionBonus(queryTerms, ownTermsOf(result.documentId), idf, parameters),
  }));
  head.sort((a, b) => b.adjusted - a.adjusted || a.order - b.order);
  return [
    ...head.map(({ result, adjusted }) => ({ documentId: result.documentId, score: adjusted })),
    ...results.slice(parameters.depth),
  ];
}
