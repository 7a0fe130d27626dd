/**
 * English function words that carry no topic. Negations ("not", "no", "never") are stopwords for
 * retrieval (they match everything) but are kept by `tokenize`, so `hasNegation` still sees them.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again against all also am an and any are aren as at be because been before being
  below between both but by can could did didn do does doesn doing don down during each either else ever
  few for from further get gets got had hadn has hasn have haven having he her here hers herself him
  himself his how i if in into is isn it its itself just let ll me might more most must mustn my myself
  no nor not now of off on once only or other our ours ourselves out over own re s same shall she should
  shouldn so some such t than that the their theirs them themselves then there these they this those
  through to too under until up upon us ve very was wasn we were weren what when where which while who
  whom whose why will with won would wouldn you your yours yourself yourselves d m o y ok okay oh yeah
  hey hi hello wow really thing things something anything lot lots bit`
    .split(/\s+/)
    .filter((word) => word !== ""),
);

export function isStopword(token: string): boolean {
  return STOPWORDS.has(token);
}
