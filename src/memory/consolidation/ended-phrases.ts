import { textPattern } from "../text/text-pattern.js";

/**
 * "No longer" in the languages people write to Mercury: "gave up", "ya no", "dejé de", "nicht mehr",
 * "kein … mehr", "ne … plus", "n'… plus". The marker is taken out of the statement and reported, so
 * what is left ("como carne", "ich esse Fleisch", "je mange de viande") is compared with the stored
 * statement word for word, exactly as "I no longer eat meat" is: the state ended only when subject,
 * attribute, object, numbers and dates all match (change.ts), never on the marker alone.
 */

/** French elision ("j'habite", "n'ai", "l'aime"): the normaliser drops the apostrophe and fuses the words. */
const ELISION = textPattern(String.raw`\b(qu|[jnldmstc])['’](?=\p{L})`, "giu");

/**
 * Holds wherever `ELISION` matches: its letter after a non-word character (ASCII `\w` here; a
 * Unicode `\b` counts "ſ" and the Kelvin sign as word characters too, so this accepts more, never
 * less), "ſ" spelled out because only the Unicode pattern folds it onto "s".
 */
const MAY_ELIDE = /(?:^|\W)(?:qu|[jnldmstcſ])['’]/i;

/** What a marker leaves of its words: a fixed string, or a function of the match (conjugation). */
type Replacement = string | ((match: string, ...groups: string[]) => string);

/**
 * Each marker with what is left of its words once it is taken out, and a word part every match
 * holds (lower case, ASCII, no "s" or "k"… see `mayHold`): a marker whose part is not in the text is
 * not tried. Compiling these patterns on their first run (case-insensitive Unicode ones, with `\b`)
 * costs a `memory add` ~2 ms of CPU, and almost no statement holds any of them.
 */
const ENDED: readonly (readonly [RegExp, Replacement, string])[] = [
  // English: "gave up coffee", "I've given up smoking".
  [/\b(?:gave|give|gives|giving|given)\s+up\b/giu, " ", "up"],
  // Spanish: "ya no como carne", "nunca más", "no como más carne" (not "no gano más que…", a comparison).
  [/\bya\s+no\b/giu, " ", "ya"],
  [/\bnunca\s+m[aá]s\b/giu, " ", "nunca"],
  [/\bno\s+((?:[^\s.,;!?]+\s+){0,2}?[^\s.,;!?]+)\s+m[aá]s\b(?!\s+(?:que|de)\b)/giu, " $1 ", "no"],
  // "dejé de trabajar" is "ya no trabajo": the infinitive takes the marker's person, so it meets the
  // stored "trabajo" word for word (a verb the table cannot conjugate stays as it is: kept apart).
  [
    /\b(dej[eé]|dejaste|dej[oó]|dejamos|dejaron|(?:he|has|ha|hemos|han)\s+dejado)\s+de\s+([a-z]+?)(ar|er|ir)\b/giu,
    (_match, marker: string, stem: string, ending: string) =>
      ` ${spanishPresent(stem, ending, spanishPerson(marker))} `,
    "dej",
  ],
  [/\b(?:dej[eéoó]|dejaste|dejamos|dejaron|(?:he|ha|hemos|han)\s+dejado)\s+de\b/giu, " ", "dej"],
  // German: "ich rauche nicht mehr", "ich esse kein Fleisch mehr" (the article is what "kein" negates).
  [/\bnicht\s+mehr\b/giu, " ", "mehr"],
  [/\bkein(e|en|em|er|es)?\b((?:\s+[^\s.,;!?]+){1,3}?)\s+mehr\b/giu, " ein$1$2 ", "mehr"],
  // "ich habe aufgehört(,) Fleisch zu essen" is "ich esse kein Fleisch mehr".
  [
    /\b(habe|hast|hat|haben|habt)\s+((?:[^\s.,;!?]+\s+){0,2}?)aufgeh(?:ö|oe|o)rt,?\s+((?:[^\s.,;!?]+\s+){0,3}?)zu\s+([a-zäöüß]+?)(en|n)\b/giu,
    (_match, auxiliary: string, between: string, object: string, stem: string) =>
      ` ${between}${object}${germanPresent(stem, auxiliary.toLowerCase())} `,
    "aufgeh",
  ],
  // French: "je ne mange plus de viande", "je n'habite plus à Lyon" (after the elision is undone).
  [/\bne\s+((?:[^\s.,;!?]+\s+){0,2}?[^\s.,;!?]+)\s+plus\b/giu, " $1 ", "plu"],
  // "j'ai arrêté de fumer" / "j'ai cessé de fumer" is "je ne fume plus" (regular -er verbs).
  [
    /\b(ai|as|a|avons|avez|ont)\s+(?:arr[eê]t[eé]|cess[eé])\s+de\s+([a-zàâçéèêëîïôûù]+?)er\b/giu,
    (_match, auxiliary: string, stem: string) => ` ${stem}${FRENCH_ER[auxiliary.toLowerCase()] ?? "e"} `,
    "de",
  ],
];

/** Grammatical person of a Spanish "dejar" form: 0 yo, 1 tú, 2 él/ella, 3 nosotros, 4 ellos. */
function spanishPerson(marker: string): number {
  const word = marker.toLowerCase();
  if (/^(?:dej[eé]|he\s)/u.test(word)) return 0;
  if (/^(?:dejaste|has\s)/u.test(word)) return 1;
  if (/^(?:dejamos|hemos\s)/u.test(word)) return 3;
  if (/^(?:dejaron|han\s)/u.test(word)) return 4;
  return 2;
}

/** Present-tense endings by person for -ar, -er and -ir verbs. */
const SPANISH_ENDINGS: Readonly<Record<string, readonly string[]>> = {
  ar: ["o", "as", "a", "amos", "an"],
  er: ["o", "es", "e", "emos", "en"],
  ir: ["o", "es", "e", "imos", "en"],
};
/** Common verbs whose present is not stem + ending (stem change or irregular). */
const SPANISH_IRREGULAR: Readonly<Record<string, readonly string[]>> = {
  jugar: ["juego", "juegas", "juega", "jugamos", "juegan"],
  ir: ["voy", "vas", "va", "vamos", "van"],
  tener: ["tengo", "tienes", "tiene", "tenemos", "tienen"],
  hacer: ["hago", "haces", "hace", "hacemos", "hacen"],
  salir: ["salgo", "sales", "sale", "salimos", "salen"],
  dormir: ["duermo", "duermes", "duerme", "dormimos", "duermen"],
  querer: ["quiero", "quieres", "quiere", "queremos", "quieren"],
  volver: ["vuelvo", "vuelves", "vuelve", "volvemos", "vuelven"],
  pensar: ["pienso", "piensas", "piensa", "pensamos", "piensan"],
  preferir: ["prefiero", "prefieres", "prefiere", "preferimos", "prefieren"],
  ver: ["veo", "ves", "ve", "vemos", "ven"],
};

function spanishPresent(stem: string, ending: string, person: number): string {
  const infinitive = `${stem}${ending}`.toLowerCase();
  const irregular = SPANISH_IRREGULAR[infinitive];
  if (irregular) return irregular[person] ?? infinitive;
  return `${stem}${SPANISH_ENDINGS[ending.toLowerCase()]?.[person] ?? ending}`;
}

function germanPresent(stem: string, auxiliary: string): string {
  // "arbeiten" -> "er arbeitet": a stem ending in t or d takes an extra e.
  const joint = /[td]$/u.test(stem) ? "e" : "";
  const ending: Readonly<Record<string, string>> = {
    habe: "e",
    hast: `${joint}st`,
    hat: `${joint}t`,
    haben: "en",
    habt: `${joint}t`,
  };
  return `${stem}${ending[auxiliary] ?? "en"}`;
}

const FRENCH_ER: Readonly<Record<string, string>> = {
  ai: "e",
  as: "es",
  a: "e",
  avons: "ons",
  avez: "ez",
  ont: "ent",
};

export { FOREIGN_FUNCTION_WORDS } from "./foreign-words.js";

export interface EndedReading {
  /** The statement with French elision undone and every "no longer" marker taken out. */
  text: string;
  /** True when the statement said the state ended. */
  ended: boolean;
}

/**
 * False only when no match of a case-insensitive Unicode pattern can hold `part` (lower-case ASCII
 * letters other than "s", whose case-insensitive matches include "ſ", which `toLowerCase` keeps):
 * every other letter such a pattern matches lower-cases to the letter itself ("K", the Kelvin sign,
 * to "k").
 */
function mayHold(lowerCased: string, part: string): boolean {
  return lowerCased.includes(part);
}

export function readEnded(text: string): EndedReading {
  // Most apostrophes are no elision ("user's", "I'm", "don't"): the Unicode pattern (~0.7 ms to
  // compile on its first run) runs only where `MAY_ELIDE`, which every one of its matches satisfies, finds one.
  let rewritten = MAY_ELIDE.test(text) ? text.replace(ELISION, (_match, word: string) => `${word}e `) : text;
  let ended = false;
  let lowerCased = rewritten.toLowerCase();
  for (const [pattern, replacement, part] of ENDED) {
    if (!mayHold(lowerCased, part)) continue;
    pattern.lastIndex = 0;
    if (!pattern.test(rewritten)) continue;
    pattern.lastIndex = 0;
    ended = true;
    rewritten =
      typeof replacement === "string"
        ? rewritten.replace(pattern, replacement)
        : rewritten.replace(pattern, replacement as (match: string, ...groups: string[]) => string);
    lowerCased = rewritten.toLowerCase();
  }
  return { text: rewritten, ended };
}
