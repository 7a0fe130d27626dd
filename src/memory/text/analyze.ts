import { stemmer } from "stemmer";
import { isCjk, segmentCjk } from "./cjk.js";
import { foldDiacritics, normalize } from "./normalize.js";
import { isStopword } from "./stopwords.js";

// An emoji is a word of its own: an emoji-only memory must be findable by that emoji.
const WORD = /[\p{L}\p{N}\p{M}]+|\p{Extended_Pictographic}/gu;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC]+/gu;
const ASCII_WORD = /^[a-z]+$/;

/**
 * Surface tokens: normalized words in order, stopwords and negations kept, CJK runs kept whole.
 * Use for negation checks and display; use `analyze` for matching.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of normalize(text).matchAll(WORD)) {
    const word = match[0];
    if (!isCjk(word)) {
      tokens.push(foldDiacritics(word));
      continue;
    }
    // A word can mix scripts ("iphone用"): split CJK runs from the rest.
    let last = 0;
    for (const run of word.matchAll(CJK_RUN)) {
      const start = run.index ?? 0;
      if (start > last) tokens.push(foldDiacritics(word.slice(last, start)));
      tokens.push(run[0]);
      last = start + run[0].length;
    }
    if (last < word.length) tokens.push(foldDiacritics(word.slice(last)));
  }
  return tokens;
}

/**
 * Porter stems already computed in this process. A stem costs a few µs (the package tests a dozen
 * suffix rules), and a search analyzes its query and up to 100 candidates whose words repeat; the
 * cache is bounded so a long-running daemon's memory stays flat.
 */
const stems = new Map<string, string>();
const STEM_CACHE_SIZE = 20_000;

function stem(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = stemmer(word);
    if (stems.size >= STEM_CACHE_SIZE) stems.clear();
    stems.set(word, stemmed);
  }
  return stemmed;
}

/** The index term for one non-CJK token, or undefined when it carries no topic. */
export function termOf(token: string): string | undefined {
  if (isStopword(token)) return undefined;
  if (ASCII_WORD.test(token)) {
    if (token.length < 2) return undefined;
    return stem(token);
  }
  return token;
}

/**
 * Index terms of a text, with repetitions (term frequency matters for BM25): normalized, stopwords
 * removed, English words Porter-stemmed, CJK runs segmented into words plus character bigrams.
 */
export function analyze(text: string): string[] {
  return termsOfTokens(tokenize(text));
}

/** `analyze` of text already tokenized (for callers that also need the tokens, e.g. negation). */
export function termsOfTokens(tokens: readonly string[]): string[] {
  const terms: string[] = [];
  for (const token of tokens) {
    if (isCjk(token)) {
      terms.push(...segmentCjk(token));
      continue;
    }
    const term = termOf(token);
    if (term !== undefined) terms.push(term);
  }
  return terms;
}

/** Term -> count. */
export function termCounts(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/**
 * Cosine similarity of the term-count vectors of two texts, in [0, 1]: 1 for texts with the same
 * stemmed content words ("I love hiking" vs "I loved hikes"), 0 when they share none. Negation is
 * not a content word here; combine with `hasNegation(tokenize(x))` to detect contradictions.
 */
export function lexicalSimilarity(a: string, b: string): number {
  return cosineOfCounts(termCounts(analyze(a)), termCounts(analyze(b)));
}

export function cosineOfCounts(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (const [term, count] of a) {
    normA += count * count;
    const other = b.get(term);
    if (other !== undefined) dot += count * other;
  }
  for (const count of b.values()) normB += count * count;
  if (normA === 0 || normB === 0) return 0;
  return dot / Math.sqrt(normA * normB);
}
