import { normalize } from "../text/analyze.js";
import { readChangeOfAnyClause } from "./clauses.js";
import {
  countsDiffer,
  difference,
  FUNCTIONAL_ATTRIBUTES,
  featuresOf,
  sameNumbers,
  sameSet,
} from "./features.js";
import type { Judgement } from "./judge.js";
import { retiredFromIt } from "./retired.js";
import { rolesSwapped } from "./roles.js";

/** The rules' reason for a contradiction by negation (guards.ts recognises it). */
export const NEGATES = "one statement negates the other";

function subsetOf(small: ReadonlySet<string>, large: ReadonlySet<string>): boolean {
  return [...small].every((value) => large.has(value));
}

/**
 * The deterministic judge, used when no model is configured (or none can be afforded). It is
 * conservative by construction:
 *   - "same" only when persons, names, numbers, dates, polarity and every content word agree;
 *   - "update" (a supersession) only when the new statement itself says the stored state changed
 *     ("changed my mind", "moved to", "no longer", "these days", 不再, 搬到…) and subject and
 *     attribute match on the words (change.ts); a change it cannot place is a conflict to review;
 *   - "contradiction" (both kept, flagged as a conflict for the user) when one statement negates the
 *     other, or when the only difference is the value of a one-value attribute (where someone lives,
 *     an age, a favourite, a code) or of a number;
 *   - everything else, including a shorter statement that says less, is "different": both are kept.
 */
export function judgeByRules(candidate: string, existing: string): Judgement {
  if (normalize(candidate).trim() === normalize(existing).trim()) {
    // Folded to the same words, but "Tulip42" is not "tulip42": a code's case is its value.
    return sameSet(featuresOf(candidate).exact, featuresOf(existing).exact)
      ? { verdict: "same", reason: "identical wording", by: "rules" }
      : {
          verdict: "contradiction",
          reason: "the same words with a code or currency written differently",
          by: "rules",
        };
  }
  const change = readChangeOfAnyClause(candidate, existing);
  if (change.kind === "update") return { verdict: "update", reason: change.reason, by: "rules" };
  const retired = retiredFromIt(candidate, existing);
  if (retired !== undefined) return { verdict: "update", reason: retired, by: "rules" };
  const judgement = compare(candidate, existing);
  if (change.kind === "review" && judgement.verdict === "different") {
    return { verdict: "contradiction", reason: change.reason, by: "rules" };
  }
  if (judgement.verdict === "different" && correctsIt(candidate, existing)) {
    // "Sorry, I meant Lyon not Lyons", "Correction: my flight is at 8pm", 说错了: the user says the stored
    // statement was wrong, but which part the words cannot always show: both kept, shown as a conflict.
    return {
      verdict: "contradiction",
      reason: `the new statement corrects the stored one (${judgement.reason})`,
      by: "rules",
    };
  }
  return judgement;
}

/** Words that say the speaker is correcting what they said before (not "actually", a filler as often). */
const SAYS_CORRECTION =
  /\b(?:correction|i meant|i mean|to be precise|my mistake|typo)\b|更正|纠正|说错|我是说|写错/u;

/** The new statement says it corrects something, adds nothing beside it, and shares a word with the stored one. */
function correctsIt(candidate: string, existing: string): boolean {
  if (!SAYS_CORRECTION.test(normalize(candidate))) return false;
  const a = featuresOf(candidate);
  const b = featuresOf(existing);
  return !a.additive && [...a.terms].some((term) => b.terms.has(term));
}

function compare(candidate: string, existing: string): Judgement {
  const a = featuresOf(candidate);
  const b = featuresOf(existing);
  const onlyA = difference(a.terms, b.terms);
  const onlyB = difference(b.terms, a.terms);
  const shared = [...a.terms].filter((term) => b.terms.has(term));
  const personsDiffer = !sameSet(a.persons, b.persons);
  const numbersDiffer = !sameNumbers(a, b);
  const datesDiffer = !sameSet(a.dates, b.dates);
  const polarityDiffers = a.negated !== b.negated || a.past !== b.past;
  const different = (reason: string): Judgement => ({ verdict: "different", reason, by: "rules" });

  if (personsDiffer) return different("about different people");
  if (countsDiffer(a, b)) return different("one thing and several of it");
  if (!sameSet(a.modality, b.modality)) return different("one statement is a wish, plan or possibility");
  if (polarityDiffers) {
    // The shorter claim's content must lie inside the longer one, or they are about other things.
    const [small, large] = a.terms.size <= b.terms.size ? [a, b] : [b, a];
    const sameContent =
      shared.length > 0 &&
      subsetOf(small.terms, large.terms) &&
      subsetOf(small.names, large.names) &&
      subsetOf(small.numbers, large.numbers) &&
      subsetOf(small.dates, large.dates);
    return sameContent
      ? { verdict: "contradiction", reason: NEGATES, by: "rules" }
      : different("opposite polarity but about different things");
  }
  if (datesDiffer) return different("different dates or days");
  if (numbersDiffer) {
    const bare = (features: typeof a) => new Set([...features.numbers].map((n) => n.replace(/[~<>=+]/g, "")));
    if (sameSet(bare(a), bare(b))) {
      return different("the same numbers, approximate or bounded on one side, or in another order");
    }
    if (
      onlyA.length === 0 &&
      onlyB.length === 0 &&
      (shared.length > 0 || a.persons.size > 0 || (a.terms.size === 0 && b.terms.size === 0)) &&
      a.numbers.size > 0 &&
      b.numbers.size > 0
    ) {
      return {
        verdict: "contradiction",
        reason: `possible update of a number: ${[...a.numbers].join(", ")} vs ${[...b.numbers].join(", ")}`,
        by: "rules",
      };
    }
    return different("different numbers");
  }
  const somethingShared = shared.length > 0 || a.persons.size > 0 || a.numbers.size > 0;
  if (onlyA.length === 0 && onlyB.length === 0 && somethingShared && !sameSet(a.exact, b.exact)) {
    return different("a code or currency differs");
  }
  if (onlyA.length === 0 && onlyB.length === 0 && somethingShared && a.tense !== b.tense) {
    // "Anna is my wife" / "Anna was my wife" cannot both be current; a future plan and a past event can.
    return a.tense === "future" || b.tense === "future"
      ? different("one statement is a plan, the other happened")
      : { verdict: "contradiction", reason: "one statement says it was, the other that it is", by: "rules" };
  }
  if (onlyA.length === 0 && onlyB.length === 0 && somethingShared) {
    // A relative time ("last month") on one side only says when, but two statements that differ in
    // it are not the same claim.
    if (!sameSet(a.when, b.when)) return different("different relative times");
    if (rolesSwapped(candidate, existing)) return different("the same words with the people in other roles");
    return { verdict: "same", reason: "same content words, people, numbers and dates", by: "rules" };
  }
  // "Anna is older than Ben" / "Anna is younger than Ben": the same comparison turned round cannot
  // both hold; both kept and shown as a conflict.
  if (
    onlyA.length === 1 &&
    onlyB.length === 1 &&
    antonyms(onlyA[0] ?? "", onlyB[0] ?? "") &&
    shared.length > 0 &&
    // Only a comparison: "my older sister" / "my younger sister" are two sisters; with the names
    // exchanged too ("Ben is younger than Anna") it says the same, kept as two facts.
    COMPARISON.test(candidate) &&
    COMPARISON.test(existing) &&
    !rolesSwapped(candidate, existing)
  ) {
    return {
      verdict: "contradiction",
      reason: `opposite comparisons: ${onlyA[0]} vs ${onlyB[0]}`,
      by: "rules",
    };
  }
  const attribute = shared.find((term) => FUNCTIONAL_ATTRIBUTES.has(term));
  // The differing word must be the attribute's value (after it in both statements): a differing
  // word before it is another subject ("my friend Bob lives in Paris" / "... Alice ...").
  const isValue = (features: typeof a, value: string | undefined) => {
    const order = [...features.terms];
    return value !== undefined && attribute !== undefined && order.indexOf(value) > order.indexOf(attribute);
  };
  // "I no longer live in Lyon" / "… in Paris": denied values of a one-value attribute are two facts.
  const denied = a.negated || b.negated;
  if (!denied && onlyA.length === 1 && onlyB.length === 1 && isValue(a, onlyA[0]) && isValue(b, onlyB[0])) {
    return {
      verdict: "contradiction",
      reason: `possible update of ${attribute}: ${onlyA[0]} vs ${onlyB[0]}`,
      by: "rules",
    };
  }
  if (onlyA.length === 0 || onlyB.length === 0) {
    return different("one statement says more than the other; both are kept");
  }
  return different(`different content (${onlyA.join(", ")} vs ${onlyB.join(", ")})`);
}

const COMPARISON = /\b(?:than|que|als|qu)\b|比/iu;

/** Comparatives that say the opposite of each other (as the features hold them: lower case, whole words). */
const OPPOSITES: readonly (readonly [string, string])[] = [
  ["older", "younger"],
  ["elder", "younger"],
  ["taller", "shorter"],
  ["bigger", "smaller"],
  ["larger", "smaller"],
  ["heavier", "lighter"],
  ["richer", "poorer"],
  ["faster", "slower"],
  ["earlier", "later"],
  ["mayor", "menor"],
  ["älter", "jünger"],
  ["大", "小"],
  ["高", "矮"],
  ["胖", "瘦"],
];

function antonyms(a: string, b: string): boolean {
  return OPPOSITES.some(([one, other]) => (a === one && b === other) || (a === other && b === one));
}
