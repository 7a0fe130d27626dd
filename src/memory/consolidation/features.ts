import { stemmer } from "stemmer";
import { isCjk, isNegation, isStopword, normalize, tokenize } from "../text/analyze.js";
import { textPattern } from "../text/text-pattern.js";
import { agePhrases, approximatorAfter, approximatorBefore, numericDates } from "./approximator.js";
import { cjkFeatures } from "./cjk-features.js";
import { FOREIGN_FUNCTION_WORDS, readEnded } from "./ended-phrases.js";
import {
  FOREIGN_MONTHS,
  FOREIGN_NEGATIONS,
  FOREIGN_NUMBER_WORDS,
  FOREIGN_PRONOUNS,
  FOREIGN_RELATIONS,
  FOREIGN_WEEKDAYS,
  foreignPersonAt,
  isFrenchPersonPrefix,
} from "./foreign-words.js";
import { personChains } from "./roles.js";
import {
  ADDITIVE_MARKERS,
  CHANGE_MARKERS,
  ENDING_VERBS,
  IRREGULAR_PERSONS,
  ISO_DATE,
  KINSHIP,
  MONTHS,
  NEUTRAL_TERMS,
  NUMBER_WORDS,
  PERSON_MODIFIERS,
  PLURAL_PERSONS,
  PRONOUN_PERSONS,
  RELATION_SYNONYMS,
  RELATIVE_DAYS,
  RELATIVE_TIME,
  TIME_OF_DAY,
  WEEKDAYS,
} from "./vocabulary.js";

// Unicode-property patterns with an ASCII fast path (text/text-pattern.ts).
const MIXED_ALPHANUMERIC = textPattern(String.raw`[\p{L}\p{N}]*(?:\p{L}\p{N}|\p{N}\p{L})[\p{L}\p{N}]*`, "gu");
const HAS_UPPERCASE = textPattern(String.raw`\p{Lu}`, "u");
const WORD_WITH_SYMBOLS = textPattern(String.raw`[\p{L}\p{N}][\p{L}\p{N}'+#.-]*`, "gu");
const STARTS_UPPERCASE = textPattern(String.raw`^\p{Lu}`, "u");
const PRONOUN_I = textPattern(String.raw`^I(?:['’]\p{L}+)?$`, "u");
const POSSESSIVE_NAME = textPattern(String.raw`(?:^|[^\p{L}])(\p{Lu}[\p{L}-]*)['’]s?(?=\s|$)`, "gu");
const PICTOGRAPH = textPattern(String.raw`\p{Extended_Pictographic}`, "gu");

export { FUNCTIONAL_ATTRIBUTES } from "./vocabulary.js";

/**
 * What a statement is about, taken apart so two statements can be compared slot by slot instead of
 * by word overlap: one differing person, number, date, name or polarity changes the claim, however
 * many other words are shared ("My sister lives in Paris" is not "My brother lives in Paris").
 */
export interface StatementFeatures {
  /** Stemmed content words (and CJK words), with persons, numbers, dates and negations taken out. */
  terms: Set<string>;
  /**
   * Kinship and role words, singular, with a plural marked ("sister+": my sisters) and a modifier
   * kept ("ex-wife", "late-grandfather"): each is another person than the bare word.
   */
  persons: Set<string>;
  /** Proper nouns in the text (not at the start of a sentence): names, places, brands. */
  names: Set<string>;
  /** Names right after a kinship or role word: "my wife Anna" -> "anna". */
  personNames: Set<string>;
  /** Numeric values, digits or number words ("seven", "七") alike. */
  numbers: Set<string>;
  /** Weekdays, months, calendar dates and relative days. */
  dates: Set<string>;
  /** Relative times ("last month", "recently"): they keep two statements from being "the same". */
  when: Set<string>;
  negated: boolean;
  /** A word that says a state changed ("moved", "switched", "now", "quit", "现在"). */
  changed: boolean;
  /** A word that adds a fact beside another ("too", "also", "my other sister", "也"). */
  additive: boolean;
  /** "used to", "anymore", "no longer", "以前", "不再": the claim is about a past state. */
  past: boolean;
  /**
   * The grammatical time of the claim: "Anna was my wife" is not "Anna is my wife", "I'll be in
   * Paris on Monday" is not "I was in Paris on Monday". Only "was/were/had/did" and "will/going to"
   * are read; other past forms are not.
   */
  tense: "past" | "present" | "future";
  /**
   * Codes as written, case kept ("Tulip42" is not "tulip42"), and currencies ("$40" is not "€40"):
   * the rest of the comparison folds case and drops symbols.
   */
  exact: Set<string>;
  /** Modal and intent words ("should", "want", "might", 想, 应该), "?" for a question, "if" for a condition. */
  modality: Set<string>;
  /** Things after "my/our/his…", "+" marking a plural ("my dogs" -> "dog+"). */
  possessed: Set<string>;
}

const QUANTIFIERS: ReadonlySet<string> = new Set(
  "all most some many few none every each half several both any no-one nobody everyone everybody".split(" "),
);
const MODALS: ReadonlySet<string> = new Set(
  "should might may could would must ought want wants wanted wish wishes hope hopes plan plans planning intend intends try trying need needs suggest suggests suggested recommend recommends recommended advise advises advised".split(
    " ",
  ),
);

const POSSESSIVES: ReadonlySet<string> = new Set(["my", "our", "his", "her", "their", "your"]);

const CURRENCIES: Readonly<Record<string, string>> = {
  $: "usd",
  "€": "eur",
  "£": "gbp",
  "¥": "jpy",
  "₹": "inr",
};

/** "It's", "That's", "Here's": a contraction of "is", not a possessor. */
const NOT_OWNERS: ReadonlySet<string> = new Set(
  "user it that there here what he she let who where how when why this everyone everybody nobody somebody someone today tomorrow yesterday".split(
    " ",
  ),
);

/**
 * A coming period or an intention in Chinese ("明年会搬到北京", "下个月要换工作", "准备辞职"): a plan, like
 * "will". 会/要 count only before a verb of change, since 我会游泳 is "I can swim".
 */
const CJK_FUTURE =
  /明年|后年|後年|下(?:个|個)?(?:月|星期|礼拜|禮拜)|下周|下週|下半年|将来|將來|即将|即將|准备|準備|(?:会|會|要)(?=搬|去|换|換|开始|開始|辞职|辭職|结婚|結婚|离开|離開|买|買|卖|賣|退休)/u;

const GOING_TO_PLAN =
  /\bgoing to (?!(?:the|a|an|my|your|his|her|our|their|this|that|these|those|school|work|church|bed|college|university|class|gym|home)\b)/u;

function tenseOf(text: string): StatementFeatures["tense"] {
  const lower = text.toLowerCase();
  if (/\b(?:will|shall|gonna)\b|['’]ll\b|将要|将会|打算/u.test(lower)) return "future";
  // "going to" before a place or a thing ("going to the gym", "going to work") is where one goes, not a plan.
  if (GOING_TO_PLAN.test(lower) || CJK_FUTURE.test(text)) return "future";
  if (/\b(?:was|were|had|did)\b/.test(lower)) return "past";
  return "present";
}

function exactTokens(text: string): Set<string> {
  const exact = new Set<string>();
  // A token with letters, digits and a capital is a code or a password: its case is part of it
  // ("20mg" has no capital and is a number with a unit, compared as such).
  for (const match of text.matchAll(MIXED_ALPHANUMERIC)) {
    if (HAS_UPPERCASE.test(match[0])) exact.add(match[0]);
  }
  for (const match of text.matchAll(/([$€£¥₹])\s?\d|\d\s?([$€£¥₹])/gu)) {
    const symbol = match[1] ?? match[2] ?? "";
    exact.add(CURRENCIES[symbol] ?? symbol);
  }
  return exact;
}

function properNouns(text: string): Set<string> {
  const names = new Set<string>();
  const sentences = text.split(/[.!?。！？\n]+/);
  for (const sentence of sentences) {
    const words = sentence.match(WORD_WITH_SYMBOLS) ?? [];
    words.forEach((word, position) => {
      // "I", "I'm", "I've" are the speaker, not a name.
      if (position === 0 || !STARTS_UPPERCASE.test(word) || PRONOUN_I.test(word)) return;
      const lower = normalize(word).replace(/[.'-]+$/, "");
      const singular = lower.replace(/s$/, "");
      if (WEEKDAYS.includes(singular) || MONTHS.includes(lower) || lower === "user") return;
      names.add(lower);
    });
  }
  return names;
}

function englishTerm(token: string): string | undefined {
  // Single letters carry meaning here ("vitamin C" is not "vitamin D"), except the pronoun and article.
  if (token === "a" || token === "i") return undefined;
  if (token.length > 1 && isStopword(token)) return undefined;
  if (isNegation(token) || FOREIGN_FUNCTION_WORDS.has(token)) return undefined;
  const stem = /^[a-z]+$/.test(token) ? stemmer(token) : token;
  return RELATION_SYNONYMS[token] ?? RELATION_SYNONYMS[stem] ?? FOREIGN_RELATIONS[token] ?? stem;
}

/** The canonical person a token names, "+" marking a plural ("sisters" -> "sister+"), or undefined. */
function personOf(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const singular = IRREGULAR_PERSONS[token] ?? KINSHIP[token];
  if (singular === undefined) return undefined;
  const canonical = IRREGULAR_PERSONS[singular] ?? singular;
  const plural = PLURAL_PERSONS.has(token) || (KINSHIP[token] !== undefined && KINSHIP[token] !== token);
  return plural ? `${canonical}+` : canonical;
}

/**
 * A month next to a day number is one date ("March 3", "3rd of March"), not a month and a number:
 * two appointments on different days are two dates. Returns the token positions it used.
 */
const SHORT_MONTHS: Readonly<Record<string, string>> = {
  jan: "january",
  feb: "february",
  mar: "march",
  apr: "april",
  may: "may",
  jun: "june",
  jul: "july",
  aug: "august",
  sep: "september",
  sept: "september",
  oct: "october",
  nov: "november",
  dec: "december",
};

/**
 * "dentist mon 9am", "on Fri", "every Tue": a short weekday is a day only right before a time or after
 * "on/every/next/this/last/until/by" ("mon" is also French for "my", "sat" and "sun" English words).
 */
const SHORT_WEEKDAY =
  /\b(?:(?<=(?:on|every|next|this|last|until|till|by)\s)(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b\.?|(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\.?(?=\s+\d{1,2}(?::\d{2})?\s?(?:am|pm)\b))/g;
const WEEKDAY_OF: Readonly<Record<string, string>> = {
  mon: "monday",
  tue: "tuesday",
  tues: "tuesday",
  wed: "wednesday",
  thu: "thursday",
  thur: "thursday",
  thurs: "thursday",
  fri: "friday",
  sat: "saturday",
  sun: "sunday",
};

function shortWeekdays(normalized: string, dates: Set<string>): string {
  if (!/\b(?:mon|tue|wed|thu|fri|sat|sun)/.test(normalized)) return normalized;
  return normalized.replace(SHORT_WEEKDAY, (match, after: string | undefined, before: string | undefined) => {
    const day = WEEKDAY_OF[after ?? before ?? ""];
    if (day === undefined) return match;
    dates.add(day);
    return " ";
  });
}

function calendarDays(tokens: readonly string[], dates: Set<string>): Set<number> {
  const consumed = new Set<number>();
  const day = (token: string | undefined) => {
    const match = /^(\d{1,2})(?:st|nd|rd|th)?$/.exec(token ?? "");
    const value = match?.[1] !== undefined ? Number(match[1]) : 0;
    return value >= 1 && value <= 31 ? value : undefined;
  };
  tokens.forEach((token, position) => {
    // "Mar 3", "3 Sept", "May 5": a short month (and "may") is a month only next to a day number.
    const month = MONTHS.includes(token) ? token : (FOREIGN_MONTHS[token] ?? SHORT_MONTHS[token]);
    if (month === undefined) return;
    const after = day(tokens[position + 1]);
    const of = /^(?:of|de)$/.test(tokens[position - 1] ?? "");
    const before = of ? day(tokens[position - 2]) : day(tokens[position - 1]);
    if (after !== undefined) consumed.add(position + 1);
    else if (before !== undefined) consumed.add(of ? position - 2 : position - 1);
    const value = after ?? before;
    if (value === undefined) return;
    consumed.add(position);
    dates.add(`${month} ${value}`);
  });
  return consumed;
}

/**
 * Features already computed in this process, by statement. One `memory add` asks for the same few
 * statements' features ~20 times (neighbour query, attribute and pronoun checks, the rules, the
 * change reading, the guards): the candidate and its up to five neighbours. Each caller gets its own
 * copy, so no caller can change another's. Bounded so a long-running daemon's memory stays flat.
 */
const computed = new Map<string, StatementFeatures>();
const COMPUTED_LIMIT = 2_000;

export function featuresOf(statement: string): StatementFeatures {
  let features = computed.get(statement);
  if (features === undefined) {
    features = computeFeatures(statement);
    if (computed.size >= COMPUTED_LIMIT) computed.clear();
    computed.set(statement, features);
  }
  return copyOf(features);
}

function copyOf(features: StatementFeatures): StatementFeatures {
  return {
    ...features,
    terms: new Set(features.terms),
    persons: new Set(features.persons),
    names: new Set(features.names),
    personNames: new Set(features.personNames),
    numbers: new Set(features.numbers),
    dates: new Set(features.dates),
    when: new Set(features.when),
    exact: new Set(features.exact),
    modality: new Set(features.modality),
    possessed: new Set(features.possessed),
  };
}

function computeFeatures(statement: string): StatementFeatures {
  // "ya no", "nicht mehr", "ne … plus", "gave up": taken out and read as "no longer" (ended-phrases.ts).
  const { text, ended } = readEnded(statement);
  const features: StatementFeatures = {
    terms: new Set(),
    persons: new Set(),
    names: properNouns(text),
    personNames: new Set(),
    numbers: new Set(),
    dates: new Set(),
    when: new Set(),
    negated: false,
    changed: false,
    additive: false,
    past: false,
    tense: tenseOf(text),
    exact: exactTokens(text),
    modality: new Set(),
    possessed: new Set(),
  };
  // A pronoun opening a sentence is its subject: "She is a nurse" is not "He is a nurse". Elsewhere
  // ("…a dog, he passed away") it usually points back at something already named.
  for (const match of text.matchAll(/(?:^|[.!?;\n]\s*)([A-Za-z]+)\b/g)) {
    const word = (match[1] ?? "").toLowerCase();
    const pronoun = PRONOUN_PERSONS[word] ?? FOREIGN_PRONOUNS[word];
    if (pronoun !== undefined) features.persons.add(pronoun);
  }
  // A named possessor is a person: "Jane's birthday" is not "my birthday", wherever it stands.
  for (const match of text.matchAll(POSSESSIVE_NAME)) {
    const owner = normalize(match[1] ?? "").trim();
    if (owner !== "" && personOf(owner) === undefined && !NOT_OWNERS.has(owner)) {
      features.persons.add(`${owner}'s`);
    }
  }
  // A question ("Should I move to Berlin?", 我要不要戒咖啡？) or a condition ("What if I moved…",
  // 如果…) asks or supposes: it states nothing, so it neither confirms nor changes a stored fact.
  if (/[?？]|[吗嗎呢]\s*[。.!！]?\s*$|要不要|是不是|会不会/u.test(text)) features.modality.add("?");
  if (/\b(?:if|whether|suppose|supposing|imagine)\b|如果|假如|要是|假设/iu.test(text))
    features.modality.add("if");
  let normalized = normalize(text);
  for (const match of normalized.matchAll(RELATIVE_TIME)) features.when.add(match[0]);
  normalized = normalized.replace(RELATIVE_TIME, " ");
  if (ended) {
    features.past = true;
    features.negated = true;
  }
  if (
    /\bused to\b|\banymore\b|\bno longer\b|\bformerly\b|\bpreviously\b|\bnot any ?more\b/.test(normalized)
  ) {
    features.past = true;
  }
  for (const match of normalized.matchAll(ISO_DATE)) features.dates.add(match[0]);
  normalized = shortWeekdays(normalized, features.dates);
  for (const match of normalized.matchAll(TIME_OF_DAY)) features.dates.add(match[0].replace(/\s+/g, ""));
  for (const match of text.matchAll(PICTOGRAPH)) features.terms.add(match[0]);
  normalized = numericDates(normalized, features.dates);
  const tokens = tokenize(normalized.replace(ISO_DATE, " ").replace(TIME_OF_DAY, " "));
  const consumed = calendarDays(tokens, features.dates);
  const age = agePhrases(tokens, consumed);
  const personAt = new Map<number, string>();
  tokens.forEach((token, position) => {
    if (consumed.has(position)) return;
    if (CHANGE_MARKERS.has(token)) features.changed = true;
    if (ADDITIVE_MARKERS.has(token)) features.additive = true;
    if (isCjk(token)) {
      cjkFeatures(token, features);
      return;
    }
    if (isNegation(token) || FOREIGN_NEGATIONS.has(token)) {
      // "no longer" is a change of state, not a plain negation of the same claim.
      features.negated = true;
      return;
    }
    if (token === "longer" && tokens[position - 1] === "no") return;
    const ended = ENDING_VERBS[token];
    if (ended !== undefined) {
      // "I quit smoking" / "I divorced Tom": the state is over, as with "no longer".
      features.past = true;
      if (ended !== null) features.terms.add(ended);
      return;
    }
    if (token === "single" && position > 0 && /^(?:am|is|m|s|still|now)$/.test(tokens[position - 1] ?? "")) {
      // "is single" is "is not married".
      features.negated = true;
      features.terms.add("marri");
      return;
    }
    if (PERSON_MODIFIERS.has(token) && personOf(tokens[position + 1]) !== undefined) return;
    if (isFrenchPersonPrefix(tokens, position)) return;
    // "ich bin" is "I am"; "bin" alone is an English word.
    if (token === "bin" && tokens[position - 1] === "ich") return;
    if (token === "used" && tokens[position + 1] === "to") return;
    // "on Saturdays", "at weekends": a plural day is the same day, every week.
    const day = token.replace(/s$/, "");
    if (WEEKDAYS.includes(day) || MONTHS.includes(token) || RELATIVE_DAYS.includes(day)) {
      features.dates.add(MONTHS.includes(token) ? token : day);
      return;
    }
    const foreignDay = FOREIGN_WEEKDAYS[token];
    if (foreignDay !== undefined) {
      features.dates.add(foreignDay);
      return;
    }
    if (/^(?:19|20)\d\d$/.test(token)) {
      // A year is a date: "visited Rome in 2019" and "... in 2022" are two visits, not one changed number.
      features.dates.add(token);
      return;
    }
    const number = /^(\d+(?:[.,]\d+)?)(?:st|nd|rd|th)?([a-z%$€£]*)$/.exec(token);
    if (number?.[1] !== undefined) {
      // "20mg" is the number 20 in milligrams; a leading zero is kept ("0042" is not "42"); "over 10"
      // and "about 10" are other claims than "10" (approximator.ts).
      const digits = number[1];
      const value = /^0\d/.test(digits) ? digits : String(Number(digits.replace(",", ".")));
      features.numbers.add(
        `${approximatorBefore(tokens, position)}${value}${approximatorAfter(tokens, position)}`,
      );
      const unit = number[2];
      if (unit) features.terms.add(unit);
      return;
    }
    const spelled = NUMBER_WORDS[token] ?? FOREIGN_NUMBER_WORDS[token];
    if (spelled !== undefined) {
      features.numbers.add(String(spelled));
      return;
    }
    const person = personOf(token) ?? foreignPersonAt(tokens, position);
    if (person !== undefined) {
      const modifier = tokens[position - 1];
      // "brother-in-law" is another person than "brother".
      const inLaw = tokens[position + 1] === "in" && /^laws?$/.test(tokens[position + 2] ?? "");
      if (inLaw) {
        consumed.add(position + 1);
        consumed.add(position + 2);
      }
      const who = `${person}${inLaw ? "-in-law" : ""}`;
      personAt.set(position, who);
      features.persons.add(
        modifier !== undefined && PERSON_MODIFIERS.has(modifier) ? `${modifier}-${who}` : who,
      );
      const next = tokens[position + 1];
      if (next !== undefined && features.names.has(next)) features.personNames.add(next);
      return;
    }
    if (QUANTIFIERS.has(token)) {
      // "most of my friends" is not "all of my friends": the quantifier is part of the claim.
      features.terms.add(`q:${token}`);
      return;
    }
    // "I should exercise" / "I want to learn piano" is a wish, a plan or a possibility, not the fact;
    // the word stays a content word too ("I want children" / "I don't want children").
    if (MODALS.has(token)) features.modality.add(token);
    // "work with .NET" is using a tool, not employment (the one-value attribute "work").
    if (/^work(?:s|ed|ing)?$/.test(token) && tokens[position + 1] === "with") {
      features.terms.add("us");
      return;
    }
    const term = englishTerm(token);
    if (term === undefined || NEUTRAL_TERMS.has(term)) return;
    features.terms.add(term);
    // "my dogs" are not "my dog": a possessed thing in the plural is another count of it, as
    // "my sisters" is not "my sister" (the stem alone folds them together).
    if (POSSESSIVES.has(tokens[position - 1] ?? "") && /^[a-z]+$/.test(token)) {
      features.possessed.add(`${term}${/[^s]s$/.test(token) && term !== token ? "+" : ""}`);
    }
  });
  for (const chain of personChains(tokens, personAt)) features.persons.add(chain);
  // "years old" is how an age is said: one attribute term (and "7 months old" is not an age in years).
  if (age) features.terms.add("age");
  if (features.terms.has("岁")) {
    features.terms.delete("岁");
    features.terms.add("age");
  }
  return features;
}

/** One side says "my dog", the other "my dogs": another count of the same thing. */
export function countsDiffer(a: StatementFeatures, b: StatementFeatures): boolean {
  const other = (item: string) => (item.endsWith("+") ? item.slice(0, -1) : `${item}+`);
  return [...a.possessed].some((item) => b.possessed.has(other(item)) && !b.possessed.has(item));
}

export function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((value) => b.has(value));
}

/**
 * The same numbers in the same order: "3/4" is not "4/3", "from 9 to 5" is not "from 5 to 9". Two
 * statements that list the same numbers in another order are kept apart (both kept), never merged.
 */
export function sameNumbers(a: StatementFeatures, b: StatementFeatures): boolean {
  return sameSet(a.numbers, b.numbers) && [...a.numbers].join(" ") === [...b.numbers].join(" ");
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
    difference(b.dates, a.dates).length === 0 &&
    difference(b.when, a.when).length === 0 &&
    difference(b.modality, a.modality).length === 0 &&
    difference(b.possessed, a.possessed).length === 0
  );
}
