import { normalize } from "../text/analyze.js";
import { textPattern } from "../text/text-pattern.js";
import { jobOrThingEnded } from "./ended-phrases.js";
import { difference, featuresOf, sameSet } from "./features.js";
import { subjectOf } from "./roles.js";

export { jobOrThingEnded };

/**
 * "My grandfather Walter works as a carpenter" then "My grandfather Walter retired last spring": the
 * job ended, though the new statement names no job. Read as an update only when the stored statement
 * says the same person works (a work verb: "works as/at/for", trabaja, arbeitet, travaille, 在…工作),
 * the new one says that person retired and adds nothing else but when (no other person, number or
 * word the stored one lacks: "retired from the army" does not end "works as a nurse").
 */
const RETIRED = textPattern(
  String.raw`\b(?:has\s+|have\s+|just\s+|finally\s+)?retired\b|(?:^|[^\p{L}])(?:se\s+jubil(?:[oóeé]|aron)|(?:est[aá]|estoy)\s+jubilad[oa])(?![\p{L}])|\b(?:ist|bin|sind)\s+(?:[^\s.,;!?]+\s+){0,3}in\s+(?:rente|pension)\s+gegangen\b|\b(?:ist|bin|sind)\s+(?:[^\s.,;!?]+\s+){0,3}pensioniert\b|\b(?:a|ai|ont)\s+pris\s+sa\s+retraite\b|退休了?`,
  "iu",
);
const WORKS = textPattern(
  String.raw`\b(?:works?|working)\s+(?:as|at|for|in)\b|(?:^|[^\p{L}])(?:trabaj[oa]s?|trabajan)\s+(?:de|como|en|para)(?![\p{L}])|\barbeite[nt]?\s+(?:als|bei|f[uü]r|in)\b|\btravaill(?:e|es|ent)\s+(?:comme|chez|pour|à|a)\b|在\S{1,12}(?:工作|上班)`,
  "iu",
);
/** Words that only say when: left beside "retired" they add nothing about what ended. */
const WHEN =
  /\b(?:last|this|in|on|at|ago|year|month|week|spring|summer|autumn|fall|winter|january|february|march|april|may|june|july|august|september|october|november|december|yesterday|today|recently|finally|just|el|la|en|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|pasado|letztes|letzten|jahr|im|dieses|l'an|dernier|derni[eè]re|ann[eé]e|en)\b|去年|今年|上个月|上月|刚刚|刚|已经|\d{4}年?/giu;

export function retiredFromIt(candidate: string, existing: string): string | undefined {
  const ended = jobOrThingEnded(candidate, existing);
  if (ended !== undefined) return ended;
  const said = normalize(candidate);
  if (!RETIRED.test(said) || !WORKS.test(normalize(existing)) || RETIRED.test(normalize(existing)))
    return undefined;
  const a = featuresOf(candidate);
  const b = featuresOf(existing);
  if (a.negated || b.negated || a.modality.size > 0 || b.modality.size > 0) return undefined;
  if (!sameSet(a.persons, b.persons) || !sameSet(a.personNames, b.personNames)) return undefined;
  // The same subject, or (when the opening does not say) the same kin or named person on both sides.
  const subject = subjectOf(candidate);
  if (subject !== subjectOf(existing)) return undefined;
  if (subject === undefined && a.persons.size === 0 && a.personNames.size === 0) return undefined;
  if (a.numbers.size > 0 && !sameSet(a.numbers, b.numbers)) return undefined;
  // What is left once "retired" and the words of when are taken out must all be in the stored statement.
  const rest = featuresOf(said.replace(RETIRED, " ").replace(WHEN, " "));
  if (difference(rest.terms, b.terms).length > 0 || difference(rest.names, b.names).length > 0)
    return undefined;
  return "the same person retired: the work the stored statement names ended";
}
