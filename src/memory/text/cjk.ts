/**
 * Chinese, Japanese and Korean text has no spaces between words, so a whitespace tokenizer would
 * turn a whole sentence into one unmatchable token. Runs of CJK characters are segmented into words
 * with Intl.Segmenter and, because a segmenter can split the same word differently in a short query
 * than in a long sentence, also into overlapping character bigrams that match regardless.
 */

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC]/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL = /\p{Script=Hangul}/u;

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
  return !isAscii(token) && CJK_CHAR.test(token);
}

function localeOf(run: string): string {
  if (KANA.test(run)) return "ja";
  if (HANGUL.test(run)) return "ko";
  return "zh";
}

/** Words and character bigrams of one run of CJK characters. */
export function segmentCjk(run: string): string[] {
  const terms: string[] = [];
  for (const part of segmenterFor(localeOf(run)).segment(run)) {
    if (part.isWordLike) terms.push(part.segment);
  }
  const chars = Array.from(run);
  if (chars.length === 1) return terms.length > 0 ? terms : chars;
  for (let index = 0; index + 1 < chars.length; index++) {
    const bigram = `${chars[index]}${chars[index + 1]}`;
    if (!terms.includes(bigram)) terms.push(bigram);
  }
  return terms;
}
