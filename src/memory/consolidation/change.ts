import { isStopword, normalize } from "../text/analyze.js";
import { textPattern } from "../text/text-pattern.js";
import {
  difference,
  FUNCTIONAL_ATTRIBUTES,
  featuresOf,
  type StatementFeatures,
  sameSet,
} from "./features.js";

// Unicode-property patterns with an ASCII fast path (text/text-pattern.ts).
const FIRST_NAME = textPattern(String.raw`^[^\p{L}]*(\p{Lu}[\p{L}'-]*)`, "u");

/**
 * Change-of-state phrasing: when a new statement itself says that a stored one stopped being true
 * ("I changed my mind, I prefer coffee now", "I moved to Austin", "I'm not vegetarian anymore",
 * "我已经搬到杭州了"), the replacement is the user's own word, not a guess. It counts as an update only
 * when subject and attribute match on the statements' words; when the new one says something changed
 * but the match cannot be shown, the pair is for review (a conflict), never a supersession.
 */
export type ChangeReading =
  | { kind: "update"; reason: string }
  | { kind: "review"; reason: string }
  | { kind: "none" };

/** Phrases that say a value was replaced. Stripped before the words are compared. */
const REPLACEMENT =
  /\b(?:i(?: have|'ve)? )?changed my mind\b|\bswitched(?: over)?(?: to| from)?\b|\binstead(?: of)?\b|\brelocated\b|\bmoved\b|\bturned\b/giu;
/** Words that place a state in the present: a change only when the stored statement lacks them. */
const PRESENT = /\b(?:now|nowadays|these days|currently|again|new)\b/giu;
/**
 * Moving house in Spanish, German and French ("me mudé a", "se mudó a", "bin nach … gezogen",
 * "umgezogen", "j'ai déménagé"): the verb stays a word (vocabulary.ts folds it onto "live").
 */
const FOREIGN_REPLACEMENT = textPattern(
  String.raw`(?:^|[^\p{L}])(?:(?:me|se|te|nos)\s+mud(?:[eéoó]|aste|amos|aron|ado)|umgezogen|gezogen|(?:d[eé]m[eé]nag[eé]e?s?))(?![\p{L}])`,
  "iu",
);
/** "Now" in Spanish, German and French: "ahora", "jetzt", "mittlerweile", "maintenant", "désormais". */
const FOREIGN_PRESENT = textPattern(
  String.raw`(?:^|[^\p{L}])(?:ahora|actualmente|hoy en d[ií]a|jetzt|nun|inzwischen|mittlerweile|derzeit|maintenant|d[eé]sormais|actuellement)(?![\p{L}])`,
  "giu",
);
/**
 * A number said to have risen or fallen to a new value: "rent went up to $1350", "subió a 950 euros",
 * "ist auf 1300 Euro gestiegen", "est passé à 950 euros", 涨到. Past forms only ("goes up in March" is a
 * plan). Stripped like the other replacement phrases, so the words left must be the stored ones.
 */
const RISE = textPattern(
  String.raw`\b(?:went|has gone|have gone|had gone)\s+(?:up|down)\s+to\b|\b(?:rose|fell|dropped|climbed|increased|decreased)\s+to\b|(?:^|[^\p{L}])(?:subi[oó]|baj[oó])\s+a(?![\p{L}])|\b(?:ist|sind)\s+auf\b|\b(?:gestiegen|gesunken)\b|\best\s+pass[eé]e?\s+[aà](?![\p{L}])|涨到|降到|涨至|降至`,
  "giu",
);
const RISE_PARTS = [
  "went",
  "gone",
  "rose",
  "fell",
  "dropped",
  "climbed",
  "creased",
  "subi",
  "baj",
  "auf",
  "gesunken",
  "gestiegen",
  "pass",
];
const CJK_REPLACEMENT = /改主意了?|改变主意了?|换成|换到|改成|改为|搬到|搬去|搬家/gu;
const CJK_PRESENT = /现在|如今|目前|最近/gu;
/**
 * "I moved my office to Lyon", "我的公司搬到了上海": something else moved, not where the person lives.
 */
const MOVED_OBJECT =
  /\b(?:moved|relocated)\s+(?!to\b|into\b|in\b|back\b|here\b|there\b|away\b|out\b|abroad\b|house\b|home\b|over\b|recently\b|last\b|again\b)[a-z]+|的[^\s，。,.]{1,4}搬/u;
/** Attributes a present-tense word alone ("now", "these days", "new") may change: one-value ones and preferences. */
const ONE_VALUE_OR_TASTE = new Set([...FUNCTIONAL_ATTRIBUTES, "like", "person", "number"]);
/** Words that move an event to another date: "the appointment was moved to Friday", 改到, 推迟. */
const RESCHEDULED = /\b(?:rescheduled|postponed|moved|pushed|delayed|brought forward)\b|改到|推迟|提前|改期/u;
/** Capitalised words that open a sentence without being its subject. */
const OPENERS = new Set(
  "actually also now well so yes no oh ok okay sorry btw still today lately recently since hey hi and but".split(
    " ",
  ),
);
/** Words that say a state began (again): "I got married", "I started eating fish", 开始, 又. */
const BEGAN = /\b(?:got|became|started|began|again)\b|开始|重新|又/u;

/**
 * Differing words that scope a fact in time ("in the morning", "in winter"): "I prefer coffee in the
 * morning" and "these days I prefer tea in the evening" are two facts even with "these days".
 */
const TIME_SCOPES = new Set([
  "morn",
  "even",
  "night",
  "afternoon",
  "summer",
  "winter",
  "spring",
  "autumn",
  "fall",
]);

/** At most this many words of a value may differ on each side ("oat milk" / "almond milk"). */
const MAX_VALUE_WORDS = 2;

function hasPattern(text: string, pattern: RegExp): boolean {
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}

/** German perfect puts the moving verb last ("bin nach Berlin gezogen"): read with the verb first, as "moved to Berlin". */
const GERMAN_MOVED =
  /\b(bin|ist|sind|seid|bist)\s+(nach|in|zu)\s+([^\s.,;!?]+(?:\s+[^\s.,;!?]+)?)\s+((?:um)?gezogen)\b/giu;

function stripPhrases(text: string): string {
  return text
    .replace(
      GERMAN_MOVED,
      (_match, auxiliary: string, to: string, place: string, moved: string) =>
        `${auxiliary} ${moved} ${to} ${place}`,
    )
    .replace(RISE, " ")
    .replace(FOREIGN_PRESENT, " ")
    .replace(REPLACEMENT, (match) => (/moved|relocated/i.test(match) ? match : " "))
    .replace(PRESENT, " ")
    .replace(CJK_REPLACEMENT, (match) => (match.startsWith("搬") ? "搬" : " "))
    .replace(CJK_PRESENT, " ");
}

interface Phrasing {
  replacement: boolean;
  present: boolean;
  /** Only "went up to / rose to / 涨到": the new value is a number, so no word may differ. */
  risenOnly: boolean;
}

/**
 * "I got a new dog named Luna", "I bought a new bike": "new" after "a/an" brings in one more thing, it
 * does not say the stored one is gone ("my new landlord", "my new number" do: one value replaced).
 */
const ANOTHER_ONE = /\b(?:a|an|another|one more)\s+(?:brand\s+)?new\b/giu;

/**
 * A word part every match of each phrase pattern holds (lower-case ASCII, never "s": a
 * case-insensitive Unicode pattern matches "ſ" for it, which `toLowerCase` keeps; every other letter
 * such a pattern matches lower-cases to itself, the Kelvin sign to "k"). A pattern is tried only on
 * text holding one: compiling these on their first run costs a `memory add` ~2–3 ms of CPU, and
 * most statements hold none of their words. The CJK patterns are all CJK: tried on non-ASCII text only.
 */
const REPLACEMENT_PARTS = ["mind", "witched", "tead", "relocated", "moved", "turned"];
const PRESENT_PARTS = ["now", "day", "currently", "again", "new"];
const FOREIGN_REPLACEMENT_PARTS = ["mud", "gezogen", "nag"];
const FOREIGN_PRESENT_PARTS = [
  "ahora",
  "actu",
  "hoy",
  "jetzt",
  "nun",
  "inzwi",
  "mittlerweile",
  "derzeit",
  "maintenant",
  "ormai",
];

function mayMatch(lowerCased: string, parts: readonly string[]): boolean {
  return parts.some((part) => lowerCased.includes(part));
}

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

// "New York", "New Delhi": a capitalised "New" before a name is part of the name, not "new".
const NEW_NAME = textPattern(String.raw`New\s+\p{Lu}`, "u");
const NEW_IN_NAME = textPattern(String.raw`\bNew(?=\s+\p{Lu})`, "gu");

function phrasing(text: string): Phrasing {
  const lower = normalize(NEW_NAME.test(text) ? text.replace(NEW_IN_NAME, " ") : text);
  const folded = lower.toLowerCase();
  const ascii = isAscii(text);
  const risen =
    (mayMatch(folded, RISE_PARTS) && hasPattern(lower, RISE)) ||
    (!ascii && /涨|降/u.test(text) && hasPattern(text, RISE));
  const replaced =
    (mayMatch(folded, REPLACEMENT_PARTS) && hasPattern(lower, REPLACEMENT)) ||
    (!ascii && hasPattern(text, CJK_REPLACEMENT)) ||
    (mayMatch(folded, FOREIGN_REPLACEMENT_PARTS) && hasPattern(lower, FOREIGN_REPLACEMENT));
  const present =
    (mayMatch(folded, PRESENT_PARTS) && hasPattern(lower.replace(ANOTHER_ONE, " "), PRESENT)) ||
    (!ascii && hasPattern(text, CJK_PRESENT)) ||
    (mayMatch(folded, FOREIGN_PRESENT_PARTS) && hasPattern(lower, FOREIGN_PRESENT));
  return { replacement: risen || replaced, present, risenOnly: risen && !replaced && !present };
}

/**
 * The differing words must be the value of an attribute both statements name: they come after a
 * shared word (the attribute, or the subject) in both, so a differing word in front is another
 * subject ("Maria moved to Lima" / "Carlos moved to Lima"). With no shared word, the same person
 * and nothing else ("My manager is Priya" / "My manager is now Dev") is the person's value.
 */
function valueDiffers(
  newer: StatementFeatures,
  older: StatementFeatures,
  newSubject: string | undefined,
  oldSubject: string | undefined,
): { ok: true; onlyNew: string[]; onlyOld: string[]; anchors: string[] } | { ok: false; why: string } {
  const onlyNew = difference(newer.terms, older.terms);
  const onlyOld = difference(older.terms, newer.terms);
  const shared = [...newer.terms].filter((term) => older.terms.has(term));
  if (shared.length === 0) {
    // "I'm 34" / "I'm 35 now": nothing but the number is said, so the number is the value.
    if (newer.terms.size === 0 && older.terms.size === 0)
      return { ok: true, onlyNew, onlyOld, anchors: ["number"] };
    const personOnly =
      newer.persons.size > 0 && newer.terms.size <= MAX_VALUE_WORDS && older.terms.size <= MAX_VALUE_WORDS;
    return personOnly
      ? { ok: true, onlyNew, onlyOld, anchors: ["person"] }
      : { ok: false, why: "no shared attribute" };
  }
  const after = (features: StatementFeatures, words: readonly string[]) => {
    const order = [...features.terms];
    return shared.some((anchor) => words.every((word) => order.indexOf(word) > order.indexOf(anchor)));
  };
  if (!after(newer, onlyNew) || !after(older, onlyOld)) {
    // Two names in front are two subjects; other words in front ("I use Vim for coding" / "I
    // switched to Emacs for coding") leave the attribute unclear.
    // One side names someone ("Karen moved to York") and the other is about the user ("I live in Leeds").
    const anotherSubject = newSubject !== oldSubject;
    return { ok: false, why: anotherSubject ? "another subject" : "not clearly the same attribute" };
  }
  const anchors = shared.filter(
    (anchor) =>
      after(newer, onlyNew) &&
      onlyNew.every((word) => [...newer.terms].indexOf(word) > [...newer.terms].indexOf(anchor)),
  );
  return { ok: true, onlyNew, onlyOld, anchors };
}

/** A capitalised first word that is not a pronoun or article: the statement's subject ("Karen lives…"). */
function leadingName(text: string): string | undefined {
  const first = FIRST_NAME.exec(text.trim())?.[1];
  if (first === undefined) return undefined;
  const word = normalize(first).replace(/'s$/, "");
  return word === "i" || isStopword(word) || OPENERS.has(word) ? undefined : word;
}

function datesClash(newer: StatementFeatures, older: StatementFeatures): boolean {
  return newer.dates.size > 0 && older.dates.size > 0 && !sameSet(newer.dates, older.dates);
}

export function readChange(newerText: string, olderText: string): ChangeReading {
  const newer = featuresOf(newerText);
  const older = featuresOf(olderText);
  const said = phrasing(newerText);
  const stored = phrasing(olderText);
  // A present-tense word is a contrast only against a statement without one ("these days" twice is not a change).
  const replaces = said.replacement || (said.present && !stored.present);
  const ends = newer.past && !older.past && !older.negated;
  const resumes =
    !newer.past &&
    !newer.negated &&
    (older.past || older.negated) &&
    (said.present || BEGAN.test(normalize(newerText)));
  const rescheduled = RESCHEDULED.test(normalize(newerText));
  if (!replaces && !ends && !resumes && !rescheduled) return { kind: "none" };
  if (!sameSet(newer.persons, older.persons) || newer.additive) return { kind: "none" };
  // "What if I moved to Berlin?", "I might move", 我应该搬到柏林吗: a question, a wish or a condition
  // the stored statement does not share says nothing changed.
  if (difference(newer.modality, older.modality).length > 0) return { kind: "none" };
  // "I will move to Berlin next year", 我明年会搬到北京: a plan the stored statement does not share has not
  // happened yet; the stored fact still holds.
  if (newer.tense === "future" && older.tense !== "future") return { kind: "none" };
  // Two dated events ("moved to Berlin in 2015" / "to Munich in 2019") are a history, not a change.
  if (datesClash(newer, older)) {
    // "My appointment is on Monday" / "… was moved to Friday": the same event, moved, says nothing
    // the stored statement did not (no other word differs).
    const moved =
      rescheduled &&
      difference(older.terms, newer.terms).length === 0 &&
      sameSet(older.numbers, newer.numbers);
    return moved
      ? { kind: "update", reason: "the new statement says the event was moved" }
      : { kind: "none" };
  }
  if (!replaces && !ends && !resumes) return { kind: "none" };
  const content = { ...newer, terms: featuresOf(stripPhrases(newerText)).terms };
  const values = valueDiffers(content, older, leadingName(stripPhrases(newerText)), leadingName(olderText));
  if (!values.ok) {
    const sharesWord = [...content.terms].some((term) => older.terms.has(term));
    return sharesWord && values.why !== "another subject"
      ? {
          kind: "review",
          reason: `the new statement says something changed, but not clearly the same attribute (${values.why})`,
        }
      : { kind: "none" };
  }
  const { onlyNew, onlyOld } = values;
  const review = (why: string): ChangeReading => ({
    kind: "review",
    reason: `the new statement says something changed, but ${why}; flagged for review`,
  });
  const heldOld =
    onlyOld.length === 0 &&
    difference(older.numbers, newer.numbers).length === 0 &&
    difference(older.names, newer.names).length === 0;
  if ((ends || resumes) && heldOld) {
    return {
      kind: "update",
      reason: ends
        ? "the new statement says the stored state ended"
        : "the new statement says the state holds again",
    };
  }
  // "I stopped eating fish" says nothing about "I eat meat": an ended state that is not the stored
  // one (another object, count, day or subject) is another fact, kept beside it without a flag.
  if (ends && !replaces && !resumes) return { kind: "none" };
  if (!replaces) return review("it also changes other words");
  if (newer.negated !== older.negated && !ends) return review("the polarity differs");
  if ([...onlyNew, ...onlyOld].some((term) => TIME_SCOPES.has(term))) return review("a time scope differs");
  const numbersDiffer = !sameSet(newer.numbers, older.numbers);
  if (onlyNew.length === 0 && onlyOld.length === 0) {
    return numbersDiffer
      ? { kind: "update", reason: "the new statement gives a new number for the same attribute" }
      : { kind: "none" };
  }
  // "My score in math is 80" / "My score in French dropped to 75": a risen number changes only the number.
  if (said.risenOnly) return review("a number rose or fell, but other words differ too");
  // "I now work at Google and teach at MIT" adds to "I work at Google": a second fact, not a change.
  if (onlyOld.length === 0) return { kind: "none" };
  if (onlyNew.length === 0) return review("the new statement drops part of the stored one");
  if (onlyOld.length > MAX_VALUE_WORDS || onlyNew.length > MAX_VALUE_WORDS) {
    return review("the stored statement holds more than the value that changed");
  }
  // Two words differing on each side are usually another attribute and its value ("favourite food
  // is sushi" / "favourite drink is tea", "window seats on long flights" / "aisle … short …").
  if (onlyOld.length === MAX_VALUE_WORDS && onlyNew.length === MAX_VALUE_WORDS) {
    return review("more than the value differs");
  }
  if (MOVED_OBJECT.test(normalize(newerText)) || MOVED_OBJECT.test(newerText)) {
    return review("something else was moved");
  }
  // "now", "these days", "new" alone replace a value only of a one-value attribute or a taste: "I now
  // speak Spanish" may be a second language, "my new cat" a second cat.
  if (!said.replacement && !values.anchors.some((anchor) => ONE_VALUE_OR_TASTE.has(anchor))) {
    return review("a present-tense word alone does not say this attribute has one value");
  }
  return {
    kind: "update",
    reason: `the new statement says the value changed (${onlyOld.join(" ")} -> ${onlyNew.join(" ")})`,
  };
}

/**
 * The extraction may reword "I changed my mind, I prefer coffee now" into "The user prefers coffee",
 * dropping the change words. When the user's own quote (checked as theirs by attribution) reads as
 * an update of the stored statement and the fact says what the quote says (same people, polarity and
 * numbers; its new words are the quote's), the change is the user's word. Returns the reason, if so.
 */
export function changeInUsersWords(quote: string, fact: string, stored: string): string | undefined {
  const reading = readChange(quote, stored);
  if (reading.kind !== "update") return undefined;
  const said = featuresOf(quote);
  const claim = featuresOf(fact);
  const old = featuresOf(stored);
  const agrees =
    sameSet(said.persons, claim.persons) &&
    said.negated === claim.negated &&
    said.past === claim.past &&
    sameSet(said.numbers, claim.numbers) &&
    difference(claim.terms, old.terms).every((term) => said.terms.has(term));
  return agrees ? `the user's own words say it changed: ${reading.reason}` : undefined;
}
