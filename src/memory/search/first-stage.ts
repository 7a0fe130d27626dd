import { bm25Idf } from "./bm25.js";
import type { LexicalIndex, ScopeStats } from "./lexical.js";

/**
 * Documents FTS5 may rank in one first-stage query (firstStage): bm25() costs about a microsecond
 * per matching document, and a word in 6% of a million memories would cost more than the whole
 * search may. A cost bound, chosen for the 5 ms target; not fitted to any data.
 */
export const FIRST_STAGE_BUDGET = 3_000;

/**
 * What a ladder conjunction with more matches than twice the limit, and whose rarest word is in more
 * documents than the budget, gives (lexical.ts candidates() `ends`): its first and its last
 * twice-the-limit matches in rowid order, unranked, for the second
 * stage to score exactly (at most 800 candidates, ~3 ms), not FTS5's bm25() top. Ranking such a
 * conjunction cost an idf pass over each word's whole doclist and a score per match: at 1,000,000
 * memories 5,000-10,000 matches, 11-16 ms for one statement, the slowest queries' whole excess over
 * the 15 ms target. It holds frequent words only (each word's documents are more than the budget):
 * its matches differ little in BM25, and the documents that hold more of the query's words come
 * from the ladder's longer steps. The newest because recent memories are the likelier subject (the
 * fallback below takes them too); the oldest because the second stage orders equal scores by the
 * lower id, so among many equal documents they are the ones exact ranking puts first. What it
 * gives up: a better-scoring match in the middle of the id order (a shorter one, or one repeating a
 * word) of a conjunction of more than 800. A conjunction of rarer words is ranked as before: FTS5
 * scores at most `budget` documents for it, which at 100,000 memories (400-900 matches, ~1.3 ms)
 * costs less than scoring 800 candidates exactly (~3 ms). Measured in BENCHMARKS.md (2026-12-01,
 * sixth pass).
 */
const OVERFLOW_ENDS = 2;

/**
 * FTS5 candidates. FTS5 ranks every document that matches a query word (about a microsecond each),
 * so the first stage is bounded by the work a query asks, not by the size of the store: when the
 * documents it would rank (at most the store's size, and at most the sum of its words' document
 * counts) fit in `budget`, it ranks every document matching any word (the benchmarks'
 * conversations, and any query of rare words). Otherwise words in at least half of the documents
 * ("user" in nearly every memory; BM25 idf near its floor) are left out when others remain,
 * and when the remaining words match more than `budget` documents in all, the candidates
 * are, in this order: (1) documents holding every one of the words that weigh most (weight x idf),
 * among the query's own words (not its related terms), taken whole when they fit in twice the
 * limit, ranked when their rarest word is in at most `budget` documents, else their oldest and
 * newest (OVERFLOW_ENDS), starting with all of them and
 * dropping the lightest until two remain (FTS5 intersects
 * from the rarest word's list, so each costs about what it returns): the documents exact BM25
 * puts first; (2) documents holding the rarest words whose document counts fit in the budget,
 * ranked; (3) the newest documents holding any word (costs only the rows taken). The second stage
 * scores every candidate on every query word.
 */
export function firstStage(
  lexical: LexicalIndex,
  queryWeights: ReadonlyMap<string, number>,
  stats: ScopeStats,
  budget: number,
  limit: number,
): number[] {
  const terms = [...queryWeights.keys()];
  const filter = lexical.scopeFilter(stats.ids);
  const counted = terms.map((term) => ({ term, df: lexical.documentFrequency(term, stats.ids) }));
  const rows = counted.reduce((sum, entry) => sum + entry.df, 0);
  if (Math.min(rows, stats.documents) <= budget) return lexical.candidates(terms, filter, limit);
  const selective = counted.filter((entry) => entry.df > 0 && entry.df * 2 < stats.documents);
  if (selective.length === 0) {
    // Only words in half the documents or more: BM25 barely tells them apart, and ranking them
    // all would cost a score per document of the store.
    return lexical.candidates(terms, filter, limit, { order: "newest" });
  }
  const words = selective.map((entry) => entry.term);
  const matching = selective.reduce((sum, entry) => sum + entry.df, 0);
  if (matching <= budget) return lexical.candidates(words, filter, limit);
  const found = new Set<number>();
  const take = (documentIds: readonly number[]) => {
    for (const documentId of documentIds) if (found.size < limit) found.add(documentId);
  };
  const weight = (entry: { term: string; df: number }) =>
    (queryWeights.get(entry.term) ?? 0) * bm25Idf(stats.documents, entry.df);
  // The ladder intersects the words the query holds itself, not the related terms it was expanded
  // with (lower weight): a document rarely says both "asthma" and its related "allergy", so the
  // all-words step came back empty and cost a whole intersection (several ms at a million) for
  // nothing. Related terms still bring their documents in through the rarest words and the second
  // stage. With fewer than two of its own words, the query's related terms join the ladder.
  const ownWeight = Math.max(...selective.map((entry) => queryWeights.get(entry.term) ?? 0));
  const own = selective.filter((entry) => (queryWeights.get(entry.term) ?? 0) >= ownWeight);
  const ladder = [...(own.length >= 2 ? own : selective)].sort(
    (x, y) => weight(y) - weight(x) || compareText(x.term, y.term),
  );
  const heaviest = ladder.map((entry) => entry.term);
  // A step whose every match fits in twice the limit comes back whole (unranked, no bm25() idf pass)
  // and is taken whole: a superset of its ranked `limit`, so the exact second stage, which scores
  // every candidate, keeps at least what it kept from the ranked answer. A larger step is ranked
  // when FTS5 would score at most `budget` documents (its rarest word's count bounds its matches),
  // else it gives its oldest and newest matches, unranked (OVERFLOW_ENDS).
  for (let count = heaviest.length; count >= 2 && found.size < limit; count--) {
    const rarest = Math.min(...ladder.slice(0, count).map((entry) => entry.df));
    const answer = lexical.candidates(heaviest.slice(0, count), filter, limit, {
      all: true,
      whole: 2 * limit,
      ends: rarest > budget ? OVERFLOW_ENDS * limit : 0,
    });
    if (answer.length > limit) for (const documentId of answer) found.add(documentId);
    else take(answer);
  }
  const rare: string[] = [];
  let cost = 0;
  for (const entry of [...selective].sort((x, y) => x.df - y.df || compareText(x.term, y.term))) {
    if (cost + entry.df > budget) break;
    rare.push(entry.term);
    cost += entry.df;
  }
  if (rare.length > 0 && found.size < limit) take(lexical.candidates(rare, filter, limit));
  if (found.size < limit) take(lexical.candidates(words, filter, limit, { order: "newest" }));
  return [...found];
}

function compareText(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
