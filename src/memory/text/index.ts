export { analyze, cosineOfCounts, lexicalSimilarity, termCounts, termOf, tokenize } from "./analyze.js";
export { isCjk, segmentCjk } from "./cjk.js";
export { hasNegation, isNegation } from "./negation.js";
export { foldDiacritics, normalize } from "./normalize.js";
export { isStopword, STOPWORDS } from "./stopwords.js";
