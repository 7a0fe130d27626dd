import { difference, FUNCTIONAL_ATTRIBUTES, featuresOf, sameSet } from "./features.js";

/**
 * Surface words of the one-value attributes the statement comparison folds together ("moved" is a
 * value of where someone lives). Added to the neighbour search, so "I moved to Berlin" finds "I live
 * in Paris" although the two share no word.
 */
const ATTRIBUTE_WORDS: Readonly<Record<string, string>> = {
  live: "live lives lived living moved relocated 住 搬",
  work: "work works worked job employed 工作 上班",
  favorit: "favorite favourite 最喜欢",
  marri: "married marriage divorced single 结婚 离婚",
};

/** The text searched for a candidate's neighbours: its own words plus its attributes' other words. */
export function neighbourQuery(text: string): string {
  const extra = [...featuresOf(text).terms].flatMap((term) => {
    const words = ATTRIBUTE_WORDS[term];
    return words === undefined ? [] : [words];
  });
  return extra.length === 0 ? text : `${text} ${extra.join(" ")}`;
}

/**
 * Two statements about the same one-value attribute of the same people ("I live in Paris" / "I
 * moved to Berlin"): worth judging even with little word overlap. The judge (or the rules) decides.
 */
export function sharesAttribute(candidate: string, stored: string): boolean {
  const a = featuresOf(candidate);
  const b = featuresOf(stored);
  if (!sameSet(a.persons, b.persons)) return false;
  const shared = [...a.terms].filter((term) => b.terms.has(term) && FUNCTIONAL_ATTRIBUTES.has(term));
  // Both must be about that attribute, not merely mention it among many other things.
  return (
    shared.length > 0 && difference(a.terms, b.terms).length <= 3 && difference(b.terms, a.terms).length <= 3
  );
}
