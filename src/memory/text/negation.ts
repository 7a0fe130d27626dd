/**
 * Negation is decided on whole tokens: "notes", "nothingness" or "knot" are not negations, while
 * "not" (including the "n't" of contractions, which normalize() expands), "no", "never" are.
 */
const NEGATIONS: ReadonlySet<string> = new Set([
  "not",
  "no",
  "never",
  "none",
  "nobody",
  "nothing",
  "neither",
  "nor",
  "nowhere",
  "cannot",
  "without",
  "dont",
  "doesnt",
  "didnt",
  "isnt",
  "wasnt",
  "cant",
  "wont",
]);

export function isNegation(token: string): boolean {
  return NEGATIONS.has(token);
}

/** True when any token (from `tokenize`, i.e. before stopword removal) is a negation word. */
export function hasNegation(tokens: readonly string[]): boolean {
  return tokens.some(isNegation);
}
