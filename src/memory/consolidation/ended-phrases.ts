/**
 * "No longer" in the languages people write to Mercury: "gave up", "ya no", "dejé de", "nicht mehr",
 * "kein … mehr", "ne … plus", "n'… plus". The marker is taken out of the statement and reported, so
 * what is left ("como carne", "ich esse Fleisch", "je mange de viande") is compared with the stored
 * statement word for word, exactly as "I no longer eat meat" is: the state ended only when subject,
 * attribute, object, numbers and dates all match (change.ts), never on the marker alone.
 */

/** French elision ("j'habite", "n'ai", "l'aime"): the normaliser drops the apostrophe and fuses the words. */
const ELISION = /\b(qu|[jnldmstc])['’](?=\p{L})/giu;

/** Each marker with what is left of its words once it is taken out. */
const ENDED: readonly (readonly [RegExp, string])[] = [
  // English: "gave up coffee", "I've given up smoking".
  [/\b(?:gave|give|gives|giving|given)\s+up\b/giu, " "],
  // Spanish: "ya no como carne", "dejé de fumar", "he dejado de trabajar".
  [/\bya\s+no\b/giu, " "],
  [/\b(?:dej[eéoó]|dejaste|dejamos|dejaron|(?:he|ha|hemos|han)\s+dejado)\s+de\b/giu, " "],
  // German: "ich rauche nicht mehr", "ich esse kein Fleisch mehr" (the article is what "kein" negates).
  [/\bnicht\s+mehr\b/giu, " "],
  [/\bkein(e|en|em|er|es)?\b((?:\s+[^\s.,;!?]+){1,3}?)\s+mehr\b/giu, " ein$1$2 "],
  // French: "je ne mange plus de viande", "je n'habite plus à Lyon" (after the elision is undone).
  [/\bne\s+((?:[^\s.,;!?]+\s+){0,2}?[^\s.,;!?]+)\s+plus\b/giu, " $1 "],
];

/**
 * Articles and prepositions of Spanish, French and German that carry no content: "de la viande"
 * after a negation is "de viande". Only words that are not English words are listed.
 */
export const FOREIGN_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  "el la los las un una unos unas del al de le les une du au aux des der das dem ein eine einen einem einer eines".split(
    " ",
  ),
);

export interface EndedReading {
  /** The statement with French elision undone and every "no longer" marker taken out. */
  text: string;
  /** True when the statement said the state ended. */
  ended: boolean;
}

export function readEnded(text: string): EndedReading {
  let rewritten = text.replace(ELISION, (_match, word: string) => `${word}e `);
  let ended = false;
  for (const [pattern, replacement] of ENDED) {
    pattern.lastIndex = 0;
    if (!pattern.test(rewritten)) continue;
    pattern.lastIndex = 0;
    ended = true;
    rewritten = rewritten.replace(pattern, replacement);
  }
  return { text: rewritten, ended };
}
