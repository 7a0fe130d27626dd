import { analyze, termCounts } from "../text/analyze.js";
import type { TermLookup } from "./stored-terms.js";
import { timeTerms } from "./time-terms.js";
import type { ContextPart, IndexedDocument } from "./types.js";

/**
 * BM25 parameters: the textbook k1 = 1.2, b = 0.75 (Robertson & Zaragoza). The previous engine used
 * b = 0.5, chosen on LoCoMo (short turns); on LongMemEval, whose assistant turns run to hundreds of
 * words, it let long answers crowd out the user's short statements. The ablation in BENCHMARKS.md
 * measures b = 0.5 against 0.75 on both dev sets.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** A context term counts this much of a term in the document's own text. */
export const CONTEXT_WEIGHT = 0.35;
/**
 * A document's context weighs at most as much as this many of its terms: a longer context (a
 * neighbouring assistant answer of hundreds of words) is scaled down as a whole, so it can neither
 * stand in for the document's own words nor lengthen it enough to dilute them. LoCoMo's context
 * (short neighbouring turns) is barely touched (−0.005 / −0.003); on LongMemEval the cap moves
 * recall@10 / nDCG@10 by +0.058 / +0.062 (ablation in BENCHMARKS.md). BM25F would normalize the
 * context by its own length; this keeps one stored term map per document and gets the same effect
 * for the case that matters, a context much longer than the text.
 */
export const CONTEXT_CAP = 40;

export interface Bm25Parameters {
  k1: number;
  b: number;
}

/**
 * Field terms (the speaker's name) are stored with this prefix, which no analyzed term can start
 * with (analysis keeps letters, digits and marks only), so a query never matches them by accident.
 */
export const SPEAKER_FIELD = "\u0001speaker:";
/** The speaker's role (IndexedDocument.role), stored the same way. */
export const ROLE_FIELD = "\u0001role:";
/** The session's key, stored the same way (IndexedDocument.session). */
export const SESSION_FIELD = "\u0001session:";

/**
 * Session 12: a named speaker's name is also indexed as a context-weight word of each of their
 * documents, so a question that names the person ("what did Caroline say about …") can match it as
 * text, as plain BM25 over "Caroline: …" does, even when its other words match nothing. The field
 * term above stays for the speaker reordering (precision.ts). Documents indexed before keep their
 * terms until reindexed. Off by default: measured (BENCHMARKS.md, session 12) it lowers the first
 * synthetic corpus's nDCG@10 (0.783 -> 0.771: a name shared by half the turns adds a little to each
 * of them) and turns the named speaker into a "topic" word for the time bound, and it does not lift
 * the split it was meant for (there the evidence shares no word with the question but the name).
 */
export const SPEAKER_WORDS = false;

export function isFieldTerm(term: string): boolean {
  return term.startsWith("\u0001");
}

/**
 * Weighted term frequencies of a document: its own text counts 1, its context CONTEXT_WEIGHT (scaled
 * down to CONTEXT_CAP terms' worth when longer); the speaker's name terms and the session key are
 * added as field terms (SPEAKER_FIELD + term, SESSION_FIELD + key, tf 1).
 */
export function documentTerms(
  doc: IndexedDocument,
  contextWeight = CONTEXT_WEIGHT,
  timeWords = true,
  contextCap = CONTEXT_CAP,
  speakerWords = SPEAKER_WORDS,
): Map<string, number> {
  const weights = termCounts(ownTerms(doc, timeWords));
  // The cap applies to the context's weighted size, so a far neighbour's long answer counts less
  // towards it than a near one's.
  const parts = contextParts(doc.context).map((part) => ({ weight: part.weight, terms: analyze(part.text) }));
  const size = parts.reduce((sum, part) => sum + part.weight * part.terms.length, 0);
  const scale = Math.min(1, contextCap / Math.max(1, size));
  for (const part of parts) {
    const weight = contextWeight * part.weight * scale;
    for (const [term, count] of termCounts(part.terms)) {
      weights.set(term, (weights.get(term) ?? 0) + weight * count);
    }
  }
  if (doc.speaker !== undefined) {
    for (const term of analyze(doc.speaker)) {
      weights.set(`${SPEAKER_FIELD}${term}`, 1);
      // A person's name also as a word, weighted as a neighbour's (SPEAKER_WORDS); "user" and
      // "assistant" (documents with a role) are not names anyone asks by.
      if (speakerWords && doc.role === undefined) weights.set(term, (weights.get(term) ?? 0) + contextWeight);
    }
  }
  if (doc.role !== undefined) weights.set(`${ROLE_FIELD}${doc.role}`, 1);
  if (doc.session !== undefined && doc.session !== "") weights.set(`${SESSION_FIELD}${doc.session}`, 1);
  return weights;
}

function contextParts(context: IndexedDocument["context"]): readonly ContextPart[] {
  if (context === undefined) return [];
  if (typeof context === "string") return context === "" ? [] : [{ text: context, weight: 1 }];
  return context
    .filter((part) => part.text !== "" && part.weight > 0)
    .map((part) => ({ text: part.text, weight: Math.min(1, part.weight) }));
}

/** The document's own analyzed terms: its text, then (timeWords) the words of when it happened. */
export function ownTerms(doc: Pick<IndexedDocument, "text" | "occurredAt">, timeWords = true): string[] {
  const terms = analyze(doc.text);
  return timeWords ? [...terms, ...timeTerms(doc.occurredAt)] : terms;
}

/** BM25 document length: the weighted count of text and context terms (field terms excluded). */
export function documentLength(weights: ReadonlyMap<string, number>): number {
  let length = 0;
  for (const [term, tf] of weights) if (!isFieldTerm(term)) length += tf;
  return length;
}

/** The speaker's analyzed name terms, read back from a document's stored term weights. */
export function speakerTermsOf(weights: ReadonlyMap<string, number>): string[] {
  const terms: string[] = [];
  for (const term of weights.keys())
    if (term.startsWith(SPEAKER_FIELD)) terms.push(term.slice(SPEAKER_FIELD.length));
  return terms;
}

export function bm25Idf(documents: number, df: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}

/**
 * Exact BM25 of one document for weighted query terms (weight 1 for the question's own words, less
 * for variants, related terms and feedback terms): sum of weight x idf x tf (k1 + 1) / (tf + k1 (1 -
 * b + b length / averageLength)). FTS5's bm25() cannot weight query terms nor change b, so the pool
 * it returns is scored again here.
 */
export function bm25Score(
  queryWeights: ReadonlyMap<string, number>,
  terms: TermLookup,
  length: number,
  averageLength: number,
  idf: (term: string) => number,
  parameters: Bm25Parameters,
): number {
  const { k1, b } = parameters;
  const norm = k1 * (1 - b + (averageLength > 0 ? (b * length) / averageLength : 0));
  let score = 0;
  for (const [term, weight] of queryWeights) {
    const tf = terms.get(term);
    if (tf === undefined || weight <= 0) continue;
    score += (weight * idf(term) * tf * (k1 + 1)) / (tf + norm);
  }
  return score;
}

/**
 * bm25Score() for one query over many documents (the second stage scores 200 candidates per
 * search): the query's terms and weights are laid out once in arrays, and each term's idf is asked
 * once, instead of a Map iteration and an idf lookup per candidate and term. Same arithmetic in the
 * same order, so the same scores to the last bit.
 */
export class Bm25Query {
  private readonly terms: string[] = [];
  private readonly weights: number[] = [];
  private readonly idfs: (number | undefined)[] = [];

  constructor(
    queryWeights: ReadonlyMap<string, number>,
    private readonly idf: (term: string) => number,
    private readonly parameters: Bm25Parameters,
  ) {
    for (const [term, weight] of queryWeights) {
      this.terms.push(term);
      this.weights.push(weight);
      this.idfs.push(undefined);
    }
  }

  score(document: TermLookup, length: number, averageLength: number): number {
    const { k1, b } = this.parameters;
    const norm = k1 * (1 - b + (averageLength > 0 ? (b * length) / averageLength : 0));
    let score = 0;
    for (let index = 0; index < this.terms.length; index++) {
      const term = this.terms[index] as string;
      const weight = this.weights[index] as number;
      const tf = document.get(term);
      if (tf === undefined || weight <= 0) continue;
      let idf = this.idfs[index];
      if (idf === undefined) {
        idf = this.idf(term);
        this.idfs[index] = idf;
      }
      score += (weight * idf * tf * (k1 + 1)) / (tf + norm);
    }
    return score;
  }
}
