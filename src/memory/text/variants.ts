/**
 * Derivational variants of a Porter stem that Porter does not conflate: "allergy"/"allergies" stem
 * to "allergi" but "allergic" to "allerg"; likewise economy/economic, biology/biological,
 * history/historic. A query term also searches its variants (the index is unchanged). The length
 * floors keep short stems apart ("parti" for party is not "part").
 */
export function morphologicalVariants(stem: string): string[] {
  if (!/^[a-z]+$/.test(stem)) return [];
  if (stem.length >= 6 && stem.endsWith("i") && !/[aeiou]i$/.test(stem)) return [stem.slice(0, -1)];
  if (stem.length >= 5 && /[^aeiouy]$/.test(stem)) return [`${stem}i`];
  return [];
}

/** Weight of a variant against the term itself: nearly the same word. */
export const VARIANT_WEIGHT = 0.9;
