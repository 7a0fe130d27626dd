import { endedStateWords, jobOrThingEnded, readEnded } from "./ended-phrases.js";
import {
  difference,
  FUNCTIONAL_ATTRIBUTES,
  featuresOf,
  type StatementFeatures,
  sameSet,
} from "./features.js";
import { subjectOf } from "./roles.js";

/**
 * Surface words of the one-value attributes the statement comparison folds together ("moved" is a
 * value of where someone lives). Added to the neighbour search, so "I moved to Berlin" finds "I live
 * in Paris" although the two share no word.
 */
const ATTRIBUTE_WORDS: Readonly<Record<string, string>> = {
  // "j'habite" is one search word ("jhabit"): the elided form is searched as written.
  live: "live lives lived living moved relocated 住 搬 vivo vive wohne wohnt habite j'habite",
  work: "work works worked job employed 工作 上班 trabajo trabaja arbeite arbeitet travaille",
  favorit: "favorite favourite 最喜欢",
  marri: "married marriage divorced single 结婚 离婚",
};

/**
 * The text searched for a candidate's neighbours: its own words plus its attributes' other words,
 * and the statement as read without its "no longer" marker ("j'ai arrêté de fumer" also searches
 * "je fume", "dejé de trabajar" "trabajo"), so an ended state finds the state it ends.
 */
export function neighbourQuery(text: string): string {
  const ended = readEnded(text);
  const extra = [...featuresOf(text).terms].flatMap((term) => {
    const words = ATTRIBUTE_WORDS[term];
    return words === undefined ? [] : [words];
  });
  if (ended.ended) extra.push(ended.text);
  const endedState = endedStateWords(text);
  if (endedState !== "") extra.push(endedState);
  return extra.length === 0 ? text : `${text} ${extra.join(" ")}`;
}

/**
 * Two statements about the same one-value attribute of the same people ("I live in Paris" / "I
 * moved to Berlin"): worth judging even with little word overlap. The judge (or the rules) decides.
 */
export function sharesAttribute(candidate: string, stored: string): boolean {
  // "left Acme in June" / "I work at Acme", "sold my Civic" / "I drive a Honda Civic" (ended-phrases.ts).
  if (jobOrThingEnded(candidate, stored) !== undefined) return true;
  const a = featuresOf(candidate);
  // Without a one-value attribute of its own the candidate shares none: the stored statement's
  // features (up to 20 neighbours per add) need not be computed.
  if (!hasFunctionalAttribute(a)) return false;
  const b = featuresOf(stored);
  if (!sameSet(a.persons, b.persons)) return false;
  const shared = [...a.terms].filter((term) => b.terms.has(term) && FUNCTIONAL_ATTRIBUTES.has(term));
  // Both must be about that attribute, not merely mention it among many other things.
  return (
    shared.length > 0 && difference(a.terms, b.terms).length <= 3 && difference(b.terms, a.terms).length <= 3
  );
}

function hasFunctionalAttribute(features: StatementFeatures): boolean {
  for (const term of features.terms) if (FUNCTIONAL_ATTRIBUTES.has(term)) return true;
  return false;
}

/** Kin words a "she" or a "he" cannot point at (a name or "my friend" may be either). */
const MALE = new Set(
  "father brother husband son boyfriend fiance grandfather uncle nephew stepfather stepson grandson 爸爸 父亲 哥哥 弟弟 丈夫 儿子 男朋友 爷爷 外公 未婚夫".split(
    " ",
  ),
);
const FEMALE = new Set(
  "mother sister wife daughter girlfriend fiancee grandmother aunt niece stepmother stepdaughter granddaughter 妈妈 母亲 姐姐 妹妹 妻子 女儿 女朋友 奶奶 外婆 未婚妻".split(
    " ",
  ),
);
const PRONOUNS = new Set(["she", "he", "they"]);

/**
 * "She moved to Rome" after "My sister Ana lives in Paris": a new statement about a pronoun may be
 * about the one other person of a stored statement on the same one-value attribute. Never resolved
 * here (a wrong antecedent would move someone else): the pair is only put before the model judge —
 * or its queue — which may answer "update"; the rules keep both (their persons differ). Only when the
 * pronoun stands alone as the subject and its gender does not rule the person out.
 */
export function pronounMayReferTo(candidate: string, stored: string): boolean {
  const a = featuresOf(candidate);
  const pronoun = [...a.persons][0];
  if (a.persons.size !== 1 || pronoun === undefined || !PRONOUNS.has(pronoun)) return false;
  if (!hasFunctionalAttribute(a)) return false;
  if (subjectOf(candidate) !== pronoun) return false;
  const b = featuresOf(stored);
  const storedSubject = subjectOf(stored);
  // The stored statement is about one other person: a kin word ("my sister Ana") or a name ("Ana lives…").
  const person = [...b.persons][0];
  if (b.persons.size === 1 && person !== undefined && !PRONOUNS.has(person)) {
    const base = person.replace(/\+$/, "");
    if (person.endsWith("+") && pronoun !== "they") return false;
    if ((pronoun === "she" && MALE.has(base)) || (pronoun === "he" && FEMALE.has(base))) return false;
  } else if (!(b.persons.size === 0 && storedSubject?.startsWith("name:"))) return false;
  return [...a.terms].some((term) => b.terms.has(term) && FUNCTIONAL_ATTRIBUTES.has(term));
}
