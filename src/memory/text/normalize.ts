/**
 * Text normalization shared by indexing and querying, so that case, Unicode width, curly quotes,
 * possessives and contractions can never make a stored memory unfindable.
 */

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
const SYMBOL_WORDS: readonly [string, RegExp, string][] = [
  ["c++", /(^|[^\p{L}\p{N}])c\+\+(?![\p{L}\p{N}])/gu, "$1cplusplus"],
  ["#", /(^|[^\p{L}\p{N}])([cfj])#(?![\p{L}\p{N}])/gu, "$1$2sharp"],
  [".net", /(^|[^\p{L}\p{N}.])\.net(?![\p{L}\p{N}])/gu, "$1dotnet"],
  [".js", /(^|[^\p{L}\p{N}])([\p{L}\p{N}]+)\.js(?![\p{L}\p{N}])/gu, "$1$2js"],
];

function symbolWords(text: string): string {
  let result = text;
  // A pattern runs only on text holding its literal part: the first run of a Unicode-property
  // pattern compiles it (~0.5 ms each), which every short-lived `mercury memory` process would pay.
  for (const [literal, pattern, replacement] of SYMBOL_WORDS)
    if (result.includes(literal)) result = result.replace(pattern, replacement);
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
  return text.includes("'") ? text.replace(/(\p{L})'(?=\p{L})/gu, "$1") : text;
}

/** Removes accents from Latin letters only: decomposing Hangul or kana would break CJK matching. */
export function foldDiacritics(token: string): string {
  if (!LATIN_WITH_MARKS.test(token)) return token;
  return token.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC");
}
