import { covers, featuresOf, sameSet } from "./features.js";
import type { Judgement } from "./judge.js";

/**
 * Hard limits on what any judge (the model included) may conclude, checked on the statements
 * themselves: two statements that name different people, numbers or dates, or where one negates the
 * other, are never the same claim; and a statement about another person never updates this one's
 * facts. A verdict that breaks a limit becomes "different" (keep both), with the reason recorded.
 */
export function guardJudgement(judgement: Judgement, candidate: string, existing: string): Judgement {
  if (judgement.verdict !== "same" && judgement.verdict !== "update") return judgement;
  const a = featuresOf(candidate);
  const b = featuresOf(existing);
  const clash: string[] = [];
  if (!sameSet(a.persons, b.persons)) clash.push("people");
  if (judgement.verdict === "same") {
    if (!sameSet(a.numbers, b.numbers)) clash.push("numbers");
    if (!sameSet(a.dates, b.dates)) clash.push("dates");
    if (a.negated !== b.negated || a.past !== b.past) clash.push("polarity");
  } else {
    // A renamed relation ("my girlfriend Anna" -> "my wife Anna") is still the same person.
    const sharedName = [...a.personNames].some((name) => b.personNames.has(name));
    if (sharedName) clash.length = 0;
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
    return judgement;
  }
  return {
    verdict: "different",
    reason: `${judgement.by} said ${judgement.verdict} but the ${clash.join(", ")} differ; both kept (${judgement.reason})`,
    by: judgement.by,
  };
}
