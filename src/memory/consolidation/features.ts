import { stemmer } from "stemmer";
import { isCjk, isStopword, normalize, tokenize } from "../text/index.js";
import { isNegation } from "../text/negation.js";

/**
 * What a statement is about, taken apart so two statements can be compared slot by slot instead of
 * by word overlap: one differing person, number, date, name or polarity changes the claim, however
 * many other words are shared ("My sister lives in Paris" is not "My brother lives in Paris").
 */
export interface StatementFeatures {
  /** Stemmed content words (and CJK words), with persons, numbers, dates and negations taken out. */
  terms: Set<string>;
  /** Kinship and role words, singular: "sister", "wife", "姐姐". */
  persons: Set<string>;
  /** Proper nouns in the text (not at the start of a sentence): names, places, brands. */
  names: Set<string>;
  /** Names right after a kinship or role word: "my wife Anna" -> "anna". */
  personNames: Set<string>;
  /** Numeric values, digits or number words ("seven", "七") alike. */
  numbers: Set<string>;
  /** Weekdays, months, calendar dates and relative days. */
  dates: Set<string>;
  negated: boolean;
  /** "used to", "anymore", "no longer", "以前", "不再": the claim is about a past state. */
  past: boolean;
}

const KINSHIP: Readonly<Record<string, string>> = Object.fromEntries(
  `mother mom mum mommy father dad daddy sister brother sibling wife husband spouse partner son daughter
  child kid baby girlfriend boyfriend fiance fiancee grandmother grandma granny grandfather grandpa aunt uncle
  cousin niece nephew friend boss manager colleague coworker roommate flatmate neighbor neighbour teacher
  doctor dentist therapist mentor grandson granddaughter stepmother stepfather stepson stepdaughter`
    .split(/\s+/)
    .filter((word) => word !== "")
    .flatMap((word) => [
      [word, word],
      [`${word}s`, word],
      [`${word}es`, word],
    ]),
);
const IRREGULAR_PERSONS: Readonly<Record<string, string>> = {
  children: "child",
  wives: "wife",
  mothers: "mother",
  mom: "mother",
  mum: "mother",
  mommy: "mother",
  dad: "father",
  daddy: "father",
  grandma: "grandmother",
  granny: "grandmother",
  grandpa: "grandfather",
  kid: "child",
  kids: "child",
  neighbour: "neighbor",
  coworker: "colleague",
};
// Longest first, so 男朋友 is not read as 朋友.
const CJK_PERSONS =
  `男朋友 女朋友 未婚妻 未婚夫 姐姐 妹妹 哥哥 弟弟 妻子 老婆 太太 丈夫 老公 儿子 女儿 妈妈 母亲
  爸爸 父亲 爷爷 奶奶 外公 外婆 朋友 同事 老板 孩子 室友 邻居 老师 医生 牙医 经理 上司`
    .split(/\s+/)
    .filter((word) => word !== "")
    .sort((a, b) => b.length - a.length);
const CJK_PERSON_CANONICAL: Readonly<Record<string, string>> = {
  老婆: "妻子",
  太太: "妻子",
  老公: "丈夫",
  妈妈: "母亲",
  爸爸: "父亲",
};

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
  twice: 2,
  once: 1,
};
const CJK_DIGITS: Readonly<Record<string, number>> = {
  零: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};
/** A Chinese numeral counts only before a measure word: 一 alone is also "one/a" in many words. */
const CJK_NUMBER = /([零一二两三四五六七八九十百]+)(?=[岁个只年次天口人位本杯公斤米点号月周小分块元])/gu;

const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
// "may" is left out: it is far more often a verb than the month.
const MONTHS = `january february march april june july august september october november december`.split(" ");
const RELATIVE_DAYS = ["today", "tomorrow", "yesterday", "tonight", "weekend", "weekday", "weekdays"];
const CJK_DATE =
  /(?:星期|周|礼拜)[一二三四五六日天末]|今天|明天|昨天|后天|前天|今晚|(?:\d+|[一二三四五六七八九十]+)月(?:(?:\d+|[一二三四五六七八九十]+)[日号])?/gu;
const CJK_WEEKDAY_CANONICAL: Readonly<Record<string, string>> = {
  一: "monday",
  二: "tuesday",
  三: "wednesday",
  四: "thursday",
  五: "friday",
  六: "saturday",
  日: "sunday",
  天: "sunday",
  末: "weekend",
};
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/g;
const TIME_OF_DAY = /\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b/g;

const CJK_NEGATION = /不再|没有|沒有|不|没|沒|无|無|未|别/gu;
const CJK_PAST = /以前|曾经|過去|过去|原来|不再/u;
const CJK_STOPWORDS = new Set(
  "我 我的 的 了 是 在 对 很 也 都 和 要 去 有 用户 到 到了 现在 今年 目前 已经 一直 会 还".split(" "),
);

/**
 * Relation verbs that name the same attribute, folded onto one term, so "lives in Paris" and
 * "moved to Berlin" are seen as two values of one attribute. English stems and CJK characters.
 */
const RELATION_SYNONYMS: Readonly<Record<string, string>> = {
  move: "live",
  moved: "live",
  reloc: "live",
  resid: "live",
  home: "live",
  employ: "work",
  job: "work",
  favourit: "favorit",
  love: "like",
  enjoi: "like",
  prefer: "like",
};
const CJK_RELATIONS: readonly [RegExp, string][] = [
  [/住|搬|居住/u, "live"],
  [/工作|上班/u, "work"],
  [/喜欢|爱|偏好/u, "like"],
  [/最喜欢/u, "favorit"],
];

/**
 * Attributes a person has one value of at a time. Only for these does the fallback flag two values
 * as a possible update (a conflict for the user); for anything else ("likes green tea" / "likes
 * black tea") two values are two facts.
 */
export const FUNCTIONAL_ATTRIBUTES: ReadonlySet<string> = new Set([
  "live",
  "work",
  "favorit",
  "name",
  "ag",
  "age",
  "old",
  "born",
  "marri",
  "address",
  "phone",
  "email",
  "code",
  "password",
  "weigh",
  "height",
  "tall",
  "salari",
  "岁",
]);

/** Terms that only mark time or subject; they carry no content of their own. */
const NEUTRAL_TERMS = new Set([
  "user",
  "anymor",
  "formerli",
  "previous",
  "former",
  "current",
  "now",
  "still",
  "actual",
]);

function properNouns(text: string): Set<string> {
  const names = new Set<string>();
  const sentences = text.split(/[.!?。！？\n]+/);
  for (const sentence of sentences) {
    const words = sentence.match(/[\p{L}\p{N}][\p{L}\p{N}'+#.-]*/gu) ?? [];
    words.forEach((word, position) => {
      if (position === 0 || !/^\p{Lu}/u.test(word) || word === "I") return;
      const lower = normalize(word).replace(/[.'-]+$/, "");
      if (WEEKDAYS.includes(lower) || MONTHS.includes(lower) || lower === "user") return;
      names.add(lower);
    });
  }
  return names;
}

function cjkNumber(raw: string): number {
  if (!raw.includes("十") && !raw.includes("百")) {
    return Number([...raw].map((char) => CJK_DIGITS[char] ?? 0).join(""));
  }
  let total = 0;
  let current = 0;
  for (const char of raw) {
    if (char === "百") {
      total += (current || 1) * 100;
      current = 0;
    } else if (char === "十") {
      total += (current || 1) * 10;
      current = 0;
    } else current = CJK_DIGITS[char] ?? 0;
  }
  return total + current;
}

function cjkFeatures(run: string, into: StatementFeatures): void {
  let rest = run;
  for (const match of run.matchAll(CJK_DATE)) {
    const text = match[0];
    const weekday = /^(?:星期|周|礼拜)(.)$/u.exec(text);
    into.dates.add(weekday ? (CJK_WEEKDAY_CANONICAL[weekday[1] ?? ""] ?? text) : text);
    rest = rest.replace(text, " ");
  }
  for (const match of rest.matchAll(CJK_NUMBER)) {
    into.numbers.add(String(cjkNumber(match[1] ?? "")));
    rest = rest.replace(match[1] ?? "", " ");
  }
  for (const person of CJK_PERSONS) {
    if (!rest.includes(person)) continue;
    into.persons.add(CJK_PERSON_CANONICAL[person] ?? person);
    rest = rest.split(person).join(" ");
  }
  if (CJK_PAST.test(rest)) into.past = true;
  if (rest.replace(/不再/gu, "").match(CJK_NEGATION)) into.negated = true;
  rest = rest.replace(/以前|曾经|过去|過去|原来/gu, " ").replace(CJK_NEGATION, " ");
  for (const [pattern, relation] of CJK_RELATIONS) {
    if (pattern.test(rest)) {
      into.terms.add(relation);
      rest = rest.replace(pattern, " ");
    }
  }
  const segmenter = new Intl.Segmenter("zh", { granularity: "word" });
  for (const piece of rest.split(/\s+/)) {
    for (const part of segmenter.segment(piece)) {
      if (!part.isWordLike || CJK_STOPWORDS.has(part.segment)) continue;
      into.terms.add(part.segment);
    }
  }
}

function englishTerm(token: string): string | undefined {
  // Single letters carry meaning here ("vitamin C" is not "vitamin D"), except the pronoun and article.
  if (token === "a" || token === "i") return undefined;
  if (token.length > 1 && isStopword(token)) return undefined;
  if (isNegation(token)) return undefined;
  const stem = /^[a-z]+$/.test(token) ? stemmer(token) : token;
  return RELATION_SYNONYMS[token] ?? RELATION_SYNONYMS[stem] ?? stem;
}

export function featuresOf(text: string): StatementFeatures {
  const features: StatementFeatures = {
    terms: new Set(),
    persons: new Set(),
    names: properNouns(text),
    personNames: new Set(),
    numbers: new Set(),
    dates: new Set(),
    negated: false,
    past: false,
  };
  const normalized = normalize(text);
  if (
    /\bused to\b|\banymore\b|\bno longer\b|\bformerly\b|\bpreviously\b|\bnot any ?more\b/.test(normalized)
  ) {
    features.past = true;
  }
  for (const match of normalized.matchAll(ISO_DATE)) features.dates.add(match[0]);
  for (const match of normalized.matchAll(TIME_OF_DAY)) features.dates.add(match[0].replace(/\s+/g, ""));
  for (const match of text.matchAll(/\p{Extended_Pictographic}/gu)) features.terms.add(match[0]);
  const tokens = tokenize(normalized.replace(ISO_DATE, " ").replace(TIME_OF_DAY, " "));
  tokens.forEach((token, position) => {
    if (isCjk(token)) {
      cjkFeatures(token, features);
      return;
    }
    if (isNegation(token)) {
      // "no longer" is a change of state, not a plain negation of the same claim.
      features.negated = true;
      return;
    }
    if (token === "longer" && tokens[position - 1] === "no") return;
    if (token === "used" && tokens[position + 1] === "to") return;
    if (WEEKDAYS.includes(token) || MONTHS.includes(token) || RELATIVE_DAYS.includes(token)) {
      features.dates.add(token.replace(/s$/, ""));
      return;
    }
    if (/^(?:19|20)\d\d$/.test(token)) {
      // A year is a date: "visited Rome in 2019" and "... in 2022" are two visits, not one changed number.
      features.dates.add(token);
      return;
    }
    if (/^\d+(?:[.,]\d+)?$/.test(token)) {
      features.numbers.add(String(Number(token.replace(",", "."))));
      return;
    }
    const spelled = NUMBER_WORDS[token];
    if (spelled !== undefined) {
      features.numbers.add(String(spelled));
      return;
    }
    const person = IRREGULAR_PERSONS[token] ?? KINSHIP[token];
    if (person !== undefined) {
      features.persons.add(IRREGULAR_PERSONS[person] ?? person);
      const next = tokens[position + 1];
      if (next !== undefined && features.names.has(next)) features.personNames.add(next);
      return;
    }
    const term = englishTerm(token);
    if (term !== undefined && !NEUTRAL_TERMS.has(term)) features.terms.add(term);
  });
  // "years old" is how an age is said; fold it onto one attribute term.
  if (features.terms.has("year") && features.terms.has("old")) {
    features.terms.delete("year");
    features.terms.delete("old");
    features.terms.add("age");
  }
  if (features.terms.has("岁")) {
    features.terms.delete("岁");
    features.terms.add("age");
  }
  return features;
}

export function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((value) => b.has(value));
}

export function difference(a: ReadonlySet<string>, b: ReadonlySet<string>): string[] {
  return [...a].filter((value) => !b.has(value));
}

/**
 * True when `newer` keeps everything `older` held: every content word, person, name, number and
 * date. A new wording replaces the stored one only then, so a shorter statement never erases what
 * the longer one said ("likes sushi" does not replace "likes sushi and ramen").
 */
export function covers(newer: string, older: string): boolean {
  const a = featuresOf(newer);
  const b = featuresOf(older);
  return (
    difference(b.terms, a.terms).length === 0 &&
    difference(b.persons, a.persons).length === 0 &&
    difference(b.names, a.names).length === 0 &&
    difference(b.numbers, a.numbers).length === 0 &&
    difference(b.dates, a.dates).length === 0
  );
}
