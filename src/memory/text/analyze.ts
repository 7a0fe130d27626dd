import { stemmer } from "stemmer";
import { textPattern } from "./text-pattern.js";

/**
 * The text analyzer shared by indexing, querying, ranking and consolidation: normalization,
 * stopwords, negation, CJK segmentation, tokens and stemmed terms. One module (it was five until
 * 2026-12-01): every `mercury memory` command loads all of it, and on Node 20 each ES module file
 * costs its own resolution, read and compile (BENCHMARKS.md, memory-command latency).
 */

// ---- Patterns built on first use ----------------------------------------------------------------
// V8 checks every regular-expression literal when it parses a module, even one inside a function that
// never runs, and a Unicode property class (`\p{L}`, `\p{Script=Han}`) costs ~0.1 ms to check: as
// literals, the analyzer's fourteen such patterns cost every `mercury memory` process ~2.5 ms to load,
// though a search in English runs one of them (BENCHMARKS.md, memory-command latency). The same
// patterns, built from their source when first used, cost nothing until then.

// Each is a `textPattern` (text-pattern.ts): it compiles on first use, and on all-ASCII text runs an
// ASCII translation of itself, which skips building the property classes.
function lazyPattern(source: string, flags: string): () => RegExp {
  const pattern = textPattern(source, flags);
  return () => pattern;
}

// ---- Normalization ----------------------------------------------------------------------------
// Shared by indexing and querying, so that case, Unicode width, curly quotes, possessives and
// contractions can never make a stored memory unfindable.

const APOSTROPHES = /[\u2018\u2019\u201B\u02BC\u2032\u0060\u00B4]/g;
// Contractions become their full words before punctuation is stripped: "don't" must stay a negation
// and "what's" must not leave a stray "s" token.
const NEGATED_CONTRACTION = /\b(can|won|shan|ain)'t\b|n't\b/g;
const CLITIC = /'(s|re|ve|ll|d|m)\b/g;
const IRREGULAR_NEGATIONS: Readonly<Record<string, string>> = {
  can: "can",
  won: "will",
  shan: "shall",
  ain: "is",
};
const LATIN_WITH_MARKS = /[\u00C0-\u024F\u1E00-\u1EFF]/;

/**
 * Technology names whose punctuation is the name: without this "C++", "C#" and "C" are one token,
 * and ".NET" is "net". Each becomes one searchable word, in documents and queries alike.
 */
const SYMBOL_WORDS: readonly [string, () => RegExp, string][] = [
  ["c++", lazyPattern(String.raw`(^|[^\p{L}\p{N}])c\+\+(?![\p{L}\p{N}])`, "gu"), "$1cplusplus"],
  ["#", lazyPattern(String.raw`(^|[^\p{L}\p{N}])([cfj])#(?![\p{L}\p{N}])`, "gu"), "$1$2sharp"],
  [".net", lazyPattern(String.raw`(^|[^\p{L}\p{N}.])\.net(?![\p{L}\p{N}])`, "gu"), "$1dotnet"],
  [".js", lazyPattern(String.raw`(^|[^\p{L}\p{N}])([\p{L}\p{N}]+)\.js(?![\p{L}\p{N}])`, "gu"), "$1$2js"],
];

function symbolWords(text: string): string {
  let result = text;
  // A pattern runs only on text holding its literal part: the first run of a Unicode-property
  // pattern compiles it (~0.5 ms each), which every short-lived `mercury memory` process would pay.
  for (const [literal, pattern, replacement] of SYMBOL_WORDS)
    if (result.includes(literal)) result = result.replace(pattern(), replacement);
  return result;
}

export function normalize(text: string): string {
  return symbolWords(
    joinApostrophes(
      text
        .normalize("NFKC")
        .toLowerCase()
        .replace(APOSTROPHES, "'")
        .replace(NEGATED_CONTRACTION, (_match, stem: string | undefined) =>
          stem === undefined ? " not" : `${IRREGULAR_NEGATIONS[stem] ?? stem} not`,
        )
        .replace(CLITIC, ""),
    ),
  );
}

function joinApostrophes(text: string): string {
  // Any other apostrophe joins its word ("o'neil" -> "oneil") so query and document agree.
  return text.includes("'") ? text.replace(LETTERS_APOSTROPHE(), "$1") : text;
}

const LETTERS_APOSTROPHE = lazyPattern(String.raw`(\p{L})'(?=\p{L})`, "gu");
const MARK = lazyPattern(String.raw`\p{M}`, "gu");

/** Removes accents from Latin letters only: decomposing Hangul or kana would break CJK matching. */
export function foldDiacritics(token: string): string {
  if (!LATIN_WITH_MARKS.test(token)) return token;
  return token.normalize("NFD").replace(MARK(), "").normalize("NFC");
}

// ---- Stopwords and negation --------------------------------------------------------------------

/**
 * English function words that carry no topic. Negations ("not", "no", "never") are stopwords for
 * retrieval (they match everything) but are kept by `tokenize`, so `hasNegation` still sees them.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again against all also am an and any are aren as at be because been before being
  below between both but by can could did didn do does doesn doing don down during each either else ever
  few for from further get gets got had hadn has hasn have haven having he her here hers herself him
  himself his how i if in into is isn it its itself just let ll me might more most must mustn my myself
  no nor not now of off on once only or other our ours ourselves out over own re s same shall she should
  shouldn so some such t than that the their theirs them themselves then there these they this those
  through to too under until up upon us ve very was wasn we were weren what when where which while who
  whom whose why will with won would wouldn you your yours yourself yourselves d m o y ok okay oh yeah
  hey hi hello wow really thing things something anything lot lots bit`
    .split(/\s+/)
    .filter((word) => word !== ""),
);

export function isStopword(token: string): boolean {
  return STOPWORDS.has(token);
}

/**
 * Negation is decided on whole tokens: "notes", "nothingness" or "knot" are not negations, while
 * "not" (including the "n't" of contractions, which normalize() expands), "no", "never" are.
 */
const NEGATIONS: ReadonlySet<string> = new Set([
  "not",
  "no",
  "never",
  "none",
  "nobody",
  "nothing",
  "neither",
  "nor",
  "nowhere",
  "cannot",
  "without",
  "dont",
  "doesnt",
  "didnt",
  "isnt",
  "wasnt",
  "cant",
  "wont",
]);

export function isNegation(token: string): boolean {
  return NEGATIONS.has(token);
}

/** True when any token (from `tokenize`, i.e. before stopword removal) is a negation word. */
export function hasNegation(tokens: readonly string[]): boolean {
  return tokens.some(isNegation);
}

// ---- CJK ----------------------------------------------------------------------------------------
// Chinese, Japanese and Korean text has no spaces between words, so a whitespace tokenizer would
// turn a whole sentence into one unmatchable token. Runs of CJK characters are segmented into words
// with Intl.Segmenter and, because a segmenter can split the same word differently in a short query
// than in a long sentence, also into overlapping character bigrams that match regardless.

const CJK_CHAR = lazyPattern(
  String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC]`,
  "u",
);
const KANA = lazyPattern(String.raw`[\p{Script=Hiragana}\p{Script=Katakana}]`, "u");
const HANGUL = lazyPattern(String.raw`\p{Script=Hangul}`, "u");

const segmenters = new Map<string, Intl.Segmenter>();

function segmenterFor(locale: string): Intl.Segmenter {
  let segmenter = segmenters.get(locale);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(locale, { granularity: "word" });
    segmenters.set(locale, segmenter);
  }
  return segmenter;
}

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

export function isCjk(token: string): boolean {
  // Plain ASCII first: compiling the script classes costs a short-lived process a few tenths of a ms.
  return !isAscii(token) && CJK_CHAR().test(token);
}

function localeOf(run: string): string {
  if (KANA().test(run)) return "ja";
  if (HANGUL().test(run)) return "ko";
  return "zh";
}

/**
 * How the word segmenter splits the Chinese words consolidation adds to the neighbour search of an
 * attribute ("I work at …" also searches 工作 上班, neighbours.ts): building the Chinese segmenter
 * costs a process ~16 ms of CPU, which an English `memory add` would pay for these five words alone.
 * The table is what `Intl.Segmenter("zh")` gives; a test compares it with the live segmenter.
 */
export const KNOWN_SEGMENTS: ReadonlyMap<string, readonly string[]> = new Map([
  ["工作", ["工作"]],
  ["上班", ["上班"]],
  ["最喜欢", ["最", "喜欢"]],
  ["结婚", ["结婚"]],
  ["离婚", ["离婚"]],
]);

/** Words and character bigrams of one run of CJK characters. */
export function segmentCjk(run: string): string[] {
  const chars = Array.from(run);
  // One character is the whole answer whatever the segmenter says of it (below), and building
  // the segmenter is what costs: 住 and 搬 are in every neighbour search about where someone lives.
  if (chars.length === 1) return chars;
  const known = KNOWN_SEGMENTS.get(run);
  const terms: string[] = known === undefined ? segmentedWords(run) : [...known];
  for (let index = 0; index + 1 < chars.length; index++) {
    const bigram = `${chars[index]}${chars[index + 1]}`;
    if (!terms.includes(bigram)) terms.push(bigram);
  }
  return terms;
}

/** The word-like parts of a CJK run, by the segmenter of its script. */
function segmentedWords(run: string): string[] {
  const terms: string[] = [];
  for (const part of segmenterFor(localeOf(run)).segment(run)) {
    if (part.isWordLike) terms.push(part.segment);
  }
  return terms;
}

// ---- Tokens and terms ---------------------------------------------------------------------------

// An emoji is a word of its own: an emoji-only memory must be findable by that emoji.
const WORD = lazyPattern(String.raw`[\p{L}\p{N}\p{M}]+|\p{Extended_Pictographic}`, "gu");
const CJK_RUN = lazyPattern(
  String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC]+`,
  "gu",
);
const ASCII_WORD = /^[a-z]+$/;

/**
 * Surface tokens: normalized words in order, stopwords and negations kept, CJK runs kept whole.
 * Use for negation checks and display; use `analyze` for matching.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of normalize(text).matchAll(WORD())) {
    const word = match[0];
    if (!isCjk(word)) {
      tokens.push(foldDiacritics(word));
      continue;
    }
    // A word can mix scripts ("iphone用"): split CJK runs from the rest.
    let last = 0;
    for (const run of word.matchAll(CJK_RUN())) {
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
