import { judgeByRules, NEGATES } from "./fallback.js";
import {
  covers,
  difference,
  FUNCTIONAL_ATTRIBUTES,
  featuresOf,
  type StatementFeatures,
  sameSet,
} from "./features.js";
import type { Judgement } from "./judge.js";

/**
 * Hard limits on what any judge (the model included) may conclude, checked on the statements
 * themselves: two statements that name different people, numbers or dates, or where one negates the
 * other, are never the same claim; and a statement about another person never updates this one's
 * facts. A verdict that breaks a limit becomes "different" (keep both), with the reason recorded.
 */
export function guardJudgement(judgement: Judgement, candidate: string, existing: string): Judgement {
  if (judgement.verdict === "different") return negationNotMissed(judgement, candidate, existing);
  if (judgement.verdict !== "same" && judgement.verdict !== "update") return judgement;
  const a = featuresOf(candidate);
  const b = featuresOf(existing);
  const clash: string[] = [];
  if (!sameSet(a.persons, b.persons)) clash.push("people");
  if (judgement.verdict === "same") {
    if (!sameSet(a.numbers, b.numbers)) clash.push("numbers");
    if (!sameSet(a.dates, b.dates) || !sameSet(a.when, b.when)) clash.push("dates");
    if (a.negated !== b.negated || a.past !== b.past) clash.push("polarity");
  }
  // A renamed relation ("my girlfriend Anna" -> "my wife Anna") is still the same person, and the
  // new relation is itself the change.
  const renamedRelation =
    judgement.verdict === "update" &&
    [...a.personNames].some((name) => b.personNames.has(name)) &&
    !sameSet(a.persons, b.persons);
  if (renamedRelation) clash.length = 0;
  if (judgement.verdict === "same") {
    // Two different names on the two sides ("my boss is Tom" / "my new boss is Jim") are two claims.
    const namesOnlyNew = difference(a.names, b.names);
    const namesOnlyOld = difference(b.names, a.names);
    if (namesOnlyNew.length > 0 && namesOnlyOld.length > 0) clash.push("names");
  }
  if (clash.length === 0) {
    const newCoversOld = covers(candidate, existing);
    const oldCoversNew = covers(existing, candidate);
    // "Same" must not lose words: when each statement holds something the other lacks, keep both.
    // A paraphrase that shares no word ("I drive a sedan" / "my vehicle is an automobile") is the
    // model's to recognise; its wordings all stay findable (see confirm).
    const sharesWords = [...a.terms].some((term) => b.terms.has(term));
    if (judgement.verdict === "same" && !newCoversOld && !oldCoversNew && sharesWords) {
      return {
        verdict: "different",
        reason: `${judgement.by} said same, but each statement holds words the other lacks; both kept (${judgement.reason})`,
        by: judgement.by,
      };
    }
    // An "update" that only drops words would erase them: a shorter statement never does that.
    if (judgement.verdict === "update" && oldCoversNew && a.negated === b.negated && a.past === b.past) {
      return {
        verdict: newCoversOld ? "same" : "different",
        reason: `${judgement.by} said update, but the new statement only repeats or drops part of the stored one (${judgement.reason})`,
        by: judgement.by,
      };
    }
    if (judgement.verdict === "update" && !renamedRelation && !marksAChange(a, b)) {
      return {
        verdict: "different",
        reason: `${judgement.by} said update, but nothing says a state changed and no one-value attribute differs; both kept (${judgement.reason})`,
        by: judgement.by,
      };
    }
    return judgement;
  }
  return {
    verdict: "different",
    reason: `${judgement.by} said ${judgement.verdict} but the ${clash.join(", ")} differ; both kept (${judgement.reason})`,
    by: judgement.by,
  };
}

/**
 * Whether an "update" is plausible on the statements' own words: the new one says a state changed
 * ("moved", "switched", "now", "quit", a negation or "no longer") and no word that adds ("too",
 * "also", "other"), or the two differ only in a number ("my son is 9" / "10"), or they share a one-value attribute (where someone lives,
 * a code, an age) and differ in its value. "I have two cats" / "I have two dogs" is none of these:
 * two facts, both kept, whatever a model says.
 */
function marksAChange(newer: StatementFeatures, older: StatementFeatures): boolean {
  if (newer.negated !== older.negated || newer.past !== older.past) return true;
  // "I speak German too", "my other sister": a fact beside the stored one, not instead of it.
  if (newer.additive) return false;
  if (newer.changed) return true;
  const onlyNew = difference(newer.terms, older.terms);
  const onlyOld = difference(older.terms, newer.terms);
  // A number is an attribute's value (an age, a count); a different date is another event (two
  // appointments, two visits) unless a change word says it was moved.
  const numbersDiffer = !sameSet(newer.numbers, older.numbers) && sameSet(newer.dates, older.dates);
  if (numbersDiffer && onlyNew.length === 0 && onlyOld.length === 0) return true;
  const attribute = [...newer.terms].find((term) => older.terms.has(term) && FUNCTIONAL_ATTRIBUTES.has(term));
  if (attribute === undefined) return false;
  // The differing words must come after the attribute in both statements (its value), not before it
  // (another subject: "my locker code" / "my bike lock code").
  const after = (features: StatementFeatures, words: readonly string[]) => {
    const order = [...features.terms];
    return words.every((word) => order.indexOf(word) > order.indexOf(attribute));
  };
  return after(newer, onlyNew) && after(older, onlyOld);
}

/**
 * A judge that calls "I eat meat" / "I stopped eating meat" two different facts leaves two current
 * memories that deny each other, unflagged. When the statements say the same thing with opposite
 * polarity, it becomes a contradiction: both kept, shown as a conflict for the user to settle.
 */
function negationNotMissed(judgement: Judgement, candidate: string, existing: string): Judgement {
  if (judgement.by === "rules") return judgement;
  const rules = judgeByRules(candidate, existing);
  if (rules.verdict !== "contradiction" || rules.reason !== NEGATES) return judgement;
  return {
    verdict: "contradiction",
    reason: `${judgement.by} said different, but one statement negates the other; both kept as a conflict (${judgement.reason})`,
    by: judgement.by,
  };
}
