import { analyze, termCounts } from "../text/analyze.js";
import type { IndexedDocument } from "./types.js";

/**
 * BM25 parameters. k1 = 1.2 is the textbook default (Robertson & Zaragoza). b = 0.5 instead of 0.75:
 * memories and conversation turns are short, and among short texts length mostly reflects wording
 * (greetings, filler) rather than topic, so length is normalized more gently. Chosen once for all
 * data (on the LoCoMo dev split b 0.75 -> 0.5 moved nDCG@10 by +0.01), never per query or corpus.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.5;
/** A context term counts this much of a term in the document's own text. */
export const CONTEXT_WEIGHT = 0.35;

export interface Bm25Parameters {
  k1: number;
  b: number;
}

/**
 * Field terms (the speaker's name) are stored with this prefix, which no analyzed term can start
 * with (analysis keeps letters, digits and marks only), so a query never matches them by accident.
 */
export const SPEAKER_FIELD = "\u0001speaker:";

export function isFieldTerm(term: string): boolean {
  return term.startsWith("\u0001");
}

/**
 * Weighted term frequencies of a document: its own text counts 1, its context CONTEXT_WEIGHT; the
 * speaker's name terms are added as field terms (SPEAKER_FIELD + term, tf 1).
 */
export function documentTerms(doc: IndexedDocument, contextWeight = CONTEXT_WEIGHT): Map<string, number> {
  const weights = termCounts(analyze(doc.text));
  if (doc.context !== undefined && doc.context !== "") {
    for (const [term, count] of termCounts(analyze(doc.context))) {
      weights.set(term, (weights.get(term) ?? 0) + contextWeight * count);
    }
  }
  if (doc.speaker !== undefined) {
    for (const term of analyze(doc.speaker)) weights.set(`${SPEAKER_FIELD}${term}`, 1);
  }
  return weights;
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

export function parseTerms(json: string): Map<string, number> {
  const parsed: unknown = JSON.parse(json);
  if (typeof parsed !== "object" || parsed === null) throw new Error("search index: malformed terms column");
  const terms = new Map<string, number>();
  for (const [term, tf] of Object.entries(parsed)) {
    if (typeof tf !== "number") throw new Error(`search index: malformed frequency for term "${term}"`);
    terms.set(term, tf);
  }
  return terms;
}

/**
 * The k-th largest score among the given documents (k <= ids.length). Quickselect, O(n). `scratch`
 * (at least ids.length long) is overwritten; passing a reused one spares the garbage collector an
 * array of every touched document per call, the larger share of a query's cost on big lists.
 */
export function kthScore(
  scores: Float64Array,
  ids: readonly number[],
  k: number,
  scratch: Float64Array = new Float64Array(ids.length),
): number {
  if (scratch.length < ids.length) throw new RangeError("kthScore: scratch is shorter than ids");
  const values = scratch.length === ids.length ? scratch : scratch.subarray(0, ids.length);
  for (let index = 0; index < ids.length; index++) values[index] = scores[ids[index] as number] as number;
  const target = values.length - k;
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1] as number;
    let left = low;
    let right = high;
    while (left <= right) {
      while ((values[left] as number) < pivot) left++;
      while ((values[right] as number) > pivot) right--;
      if (left <= right) {
        const swap = values[left] as number;
        values[left] = values[right] as number;
        values[right] = swap;
        left++;
        right--;
      }
    }
    if (target <= right) high = right;
    else if (target >= left) low = left;
    else break;
  }
  return values[target] as number;
}

/** Index of documentId in an ascending list, or -1. */
export function findDocument(documents: Int32Array, documentId: number): number {
  let low = 0;
  let high = documents.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = documents[middle] as number;
    if (value === documentId) return middle;
    if (value < documentId) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
