import { stemmer } from "stemmer";
import { difference, featuresOf } from "../consolidation/features.js";
import type { EvidenceKind, Importance } from "../store/types.js";
import { analyze, isCjk, isStopword, normalize, tokenize } from "../text/index.js";
import { relayedByLabel } from "./speaker-label.js";

/**
 * Who said a fact is decided from the transcript, never taken from the model. A fact is
 * "user-stated" only when its quote is a substantial span of one of the user's own turns and carries
 * the fact's content words; anything else (a quote from the assistant, a pronoun, a fragment that says
 * nothing of the fact) is recorded as inferred.
 */

const MIN_WORDS = 3;
const MIN_CJK_CHARS = 4;
/** Share of the fact's content terms the quote must contain. */
const MIN_CONTENT_SHARE = 0.5;
/** Words that make "critical" believable when the user says them about the fact. */
const CRITICAL_MARKERS =
  /\b(?:critical|important|importantly|must|never|always|allerg\w*|anaphyla\w*|emergency|life[- ]threatening|deadly|epipen)\b|过敏|重要|必须|千万|绝对|危险/iu;

function collapseKeepingCase(text: string): string {
  return text.normalize("NFKC").replace(/\s+/g, " ").trim();
}

function collapse(text: string): string {
  return collapseKeepingCase(text).toLowerCase();
}

const FIRST_PERSON = /\b(?:i|i'm|im|me|my|mine|myself)\b|我/iu;

/**
 * Words that open a message without naming anyone ("Update: I moved to Berlin", "FYI I am allergic",
 * "Heads up, …", "PS …"): capitalised, but not a speaker. "Tom: I am a pilot" still is one.
 */
const LEAD_INS = new Set(
  "update updates fyi ps pps note notes reminder heads up news btw edit correction quick sorry okay ok hey hi hello well yes yeah oh anyway honestly seriously please thanks also actually today lately recently self remember just listen look psa important".split(
    " ",
  ),
);

/**
 * A name in front of the quote, with no "I/my" after it, is the sentence's subject: "Tom is a
 * licensed pilot" does not state that the user is one. Chinese: words in front with no 我 ("小王对花生过敏").
 */
/** Only a clause boundary between a name and the quote: a comma, "and", "but", "so", "also", "then". */
const CLAUSE_BREAK = /^\s*(?:[,;]\s*)?(?:(?:and|but|so|also|plus|then|while|because)\s+)?$/iu;
/** A quote whose subject is the user: it opens with "I", "I'm", "my" (or 我). */
const OPENS_FIRST_PERSON = /^\s*(?:(?:i|i'm|im|i've|i'd|i'll|my|me)\b|我)/iu;

function someoneElseBefore(
  before: string,
  factText: string,
  ownNames: readonly string[],
  quote = "",
): boolean {
  const fact = normalize(factText);
  const names = [...before.matchAll(/\p{Lu}[\p{L}'-]*/gu)].filter((match) => {
    const word = normalize(match[0]).replace(/'s$/, "");
    return (
      !FIRST_PERSON.test(word) &&
      !isStopword(word) &&
      !LEAD_INS.has(word) &&
      !ownNames.includes(word) &&
      !fact.includes(word)
    );
  });
  const last = names[names.length - 1];
  if (last !== undefined) {
    const between = before.slice((last.index ?? 0) + last[0].length);
    // "I live in Paris and I am allergic to …": the name ends a clause of its own; a quote that opens
    // with "I"/"my" after "and", a comma or "but" has the user as its subject. "Tom thinks I am …"
    // (a verb between) stays someone else's framing.
    const ownClause = CLAUSE_BREAK.test(between) && OPENS_FIRST_PERSON.test(quote);
    if (!FIRST_PERSON.test(between) && !ownClause) return true;
  }
  const cjkBefore = [...before].filter((char) => isCjk(char)).join("");
  return cjkBefore.length > 0 && !cjkBefore.includes("我") && !fact.includes(cjkBefore);
}

/** "I lived in Paris" / "I was a nurse" do not state "lives in Paris" / "is a nurse". */
function tenseDiffers(quote: string, factText: string): boolean {
  const pastStems = (text: string) =>
    new Set(
      tokenize(normalize(text))
        .filter((token) => /^[a-z]{3,}ed$/.test(token))
        .map((token) => stemmer(token)),
    );
  const presentStems = (text: string) =>
    new Set(
      tokenize(normalize(text))
        .filter((token) => /^[a-z]+$/.test(token) && !/ed$/.test(token))
        .map((token) => stemmer(token)),
    );
  const quotePast = pastStems(quote);
  const factPresent = presentStems(factText);
  if ([...quotePast].some((stem) => factPresent.has(stem) && !pastStems(factText).has(stem))) return true;
  const was = /\b(?:was|were)\b/.test(normalize(quote));
  return (
    was && /\b(?:is|are|am)\b/.test(normalize(factText)) && !/\b(?:was|were)\b/.test(normalize(factText))
  );
}

/** Units of measure: "5 km" is not "5 miles". Stems, as the statement features hold them. */
const UNITS = new Set(
  `km kilometer kilometre mile kg kilo kilogram lb pound mg gram ml liter litre cm meter metre ft feet foot
  inch hour minute second day week month year percent dollar euro`
    .split(/\s+/)
    .filter((word) => word !== "")
    .map((word) => stemmer(word)),
);

/** Every unit the fact names must be in the quote. */
function unitsDropped(quote: string, factText: string): boolean {
  const quoted = featuresOf(quote).terms;
  return [...featuresOf(factText).terms].some((term) => UNITS.has(term) && !quoted.has(term));
}

/** The user's turns of an excerpt written as "User: …" / "Assistant: …" lines (a turn may span lines). */
export function userTurns(excerpt: string): string[] {
  const turns: { role: "user" | "assistant"; text: string }[] = [];
  for (const line of excerpt.split("\n")) {
    const match = /^(User|Assistant): ?(.*)$/i.exec(line);
    if (match)
      turns.push({ role: match[1]?.toLowerCase() === "user" ? "user" : "assistant", text: match[2] ?? "" });
    else if (turns.length > 0) {
      const last = turns[turns.length - 1];
      if (last) last.text += `\n${line}`;
    }
  }
  return turns.filter((turn) => turn.role === "user").map((turn) => turn.text);
}

/** Content terms of a fact about the user, without the words that only name the user. */
function contentTerms(text: string): Set<string> {
  return new Set(analyze(text).filter((term) => term !== "user"));
}

/** Several words (not a pronoun or a fragment) that carry at least half the fact's content words. */
export function isSubstantialQuote(quote: string, factText: string): boolean {
  const tokens = tokenize(quote);
  const cjkChars = tokens.filter(isCjk).reduce((sum, token) => sum + [...token].length, 0);
  const words = tokens.filter((token) => !isCjk(token)).length;
  if (words < MIN_WORDS && cjkChars < MIN_CJK_CHARS) return false;
  const quoteTerms = contentTerms(quote);
  if (quoteTerms.size === 0) return false;
  const factTerms = contentTerms(factText);
  if (factTerms.size === 0) return false;
  const carried = [...factTerms].filter((term) => quoteTerms.has(term)).length;
  if (carried / factTerms.size < MIN_CONTENT_SHARE) return false;
  // "allergic to peanuts and shellfish" from "I'm allergic to peanuts", "lives in Madrid and is a pilot"
  // from "I live in Madrid": each part of a joined fact must be in the quote on its own, or one real
  // span would carry an invented claim beside it.
  return factClauses(factText).every((clause) => {
    const terms = [...contentTerms(clause)];
    return (
      terms.length === 0 ||
      terms.filter((term) => quoteTerms.has(term)).length / terms.length >= MIN_CONTENT_SHARE
    );
  });
}

/** The parts of a fact joined by "and", "but", a comma or a relative clause (English, Chinese, es/de/fr). */
function factClauses(factText: string): string[] {
  return factText
    .split(
      /\s*(?:[,;，；、]|\b(?:and|but|also|who|which|as well as|y|e|pero|und|aber|et|mais)\b|并且|而且|以及|还有)\s*/iu,
    )
    .filter((clause) => clause.trim() !== "");
}

/** Words before a quote that make it something other than the user's own claim. */
const NOT_A_CLAIM =
  /\b(?:if|suppose|supposing|imagine|pretend|wish|hypothetically|whether|maybe|perhaps|might|would|could)\b|如果|假如|假设|要是|也许|可能/iu;
const SENTENCE_END = /[.!?。！？\n]/u;
/** A named text introduced by a colon: "this bio:", "the page says:", "my profile reads:", 这段话：. */
const PASTED_INTRO =
  /(?:\b(?:the following|following|below|bio|profile|page|article|email|e-mail|document|review|paragraph|snippet|excerpt|quote|tweet|comment|listing|letter|cv|resume|template|example|sample|reads)\b|这段话|这段|这篇|这句话|下面|以下|例句|模板)[^.!?。！？]*[:：]\s*$/iu;
const PASTED_HEADER =
  /\b(?:from|subject|sent|cc|von|betreff|gesendet|asunto|enviado|objet|envoyé)\s?:\s*\S|(?:original|forwarded)\s+message|begin forwarded|mensaje reenviado|weitergeleitete nachricht|message transféré|发件人\s*[:：]|主题\s*[:：]|转发的消息|転送/iu;
const ROLE_PLAY =
  /\b(?:pretend|role[- ]?play|act as|play the role|you are me|you're me|in character|as my character)\b|扮演|假装|角色扮演/iu;
const SAID_AFTER =
  /^\s*[,，-]?\s*(?:(?:as|according to)\s+)?(\p{L}+)\s+(?:said|says|wrote|writes|claims|claimed|told me|tells me|thinks)\b/iu;
/** The end of an earlier clause right before the quote: a comma or semicolon, then "and/but/so/…". */
const CLAUSE_END =
  /(?:[,;，；]\s*(?:(?:and|but|so|while|because|though|although)\s+)?|\s(?:and|but|so|while|though|although)\s+)$/iu;
const OPENING_QUOTES = /["'“‘«「『>]\s*$/u;

/**
 * The fact is what the user claimed with these words: the sentence holding the quote is not a
 * question, the quote is not reported speech (inside quotation marks, after "> "), nothing before it
 * in the sentence makes it hypothetical ("if", "imagine") or about someone else ("my brother and I"),
 * the negation or "no longer" agrees with the fact's, and every name, number and date of the fact is
 * in the quote ("I live in" does not state "lives in Madrid").
 */
export function claimedBy(
  turn: string,
  quote: string,
  factText: string,
  ownNames: readonly string[] = [],
): boolean {
  // "Tom: I am a pilot", a bare "Tom:" line above a pasted message: someone else's words (speaker-label.ts).
  if (relayedByLabel(turn, quote, ownNames)) return false;
  const text = collapse(turn);
  const needle = collapse(quote);
  const at = text.indexOf(needle);
  if (at < 0) return false;
  let start = at;
  while (start > 0 && !SENTENCE_END.test(text[start - 1] ?? "")) start--;
  let end = at + needle.length;
  while (end < text.length && !SENTENCE_END.test(text[end] ?? "")) end++;
  if (text[end] === "?" || text[end] === "？") return false;
  const before = text.slice(start, at);
  if (OPENING_QUOTES.test(before) || NOT_A_CLAIM.test(before)) return false;
  // "this bio: I am a pilot", "My profile reads: …": a text the user pasted after naming it, not said.
  if (PASTED_INTRO.test(before)) return false;
  // "From: jane@…", "Subject: visit", "-----Original Message-----": a pasted mail or message; what follows
  // its header is its writer's text, whatever sentence the quote is in.
  if (PASTED_HEADER.test(text.slice(0, at))) return false;
  // "Pretend you're me. I live in Madrid", "Let's role-play: …": everything after the frame is a role.
  if (ROLE_PLAY.test(text.slice(0, at))) return false;
  // "I live in Madrid, Tom said": someone else's words, said after them.
  const after = text.slice(at + needle.length, end);
  const saidAfter = SAID_AFTER.exec(after);
  if (saidAfter !== null && !FIRST_PERSON.test(saidAfter[1] ?? "")) return false;
  // Inside a code fence the user pasted something (a fixture, a document), not said it.
  if ((text.slice(0, at).match(/```/g) ?? []).length % 2 === 1) return false;
  if (reportedBySomeoneElse(before)) return false;
  // "my brother lives in Paris, but I moved to Lyon": a quote that opens with I/my right after a clause
  // break has its own subject; the other clause's person, negation and words are not the quote's.
  const ownClause = OPENS_FIRST_PERSON.test(needle) ? CLAUSE_END.exec(before) : null;
  const clause = ownClause === null ? before : before.slice(ownClause.index + ownClause[0].length);
  const said = featuresOf(`${clause}${needle}`);
  const fact = featuresOf(factText);
  // "I might be allergic", "I should move to Berlin": a hedge or a wish in the quote is not the fact.
  if (difference(said.modality, fact.modality).length > 0) return false;
  // "I will move to Lisbon next year", 我明年会搬到广州: a plan does not state "lives in Lisbon" yet.
  if (said.tense === "future" && fact.tense !== "future") return false;
  if ((said.negated || said.past) !== (fact.negated || fact.past)) return false;
  if (difference(said.persons, fact.persons).length > 0) return false;
  // "On weekends I wake up at 9am" does not state "wakes up at 9am": a condition in front is dropped.
  if (difference(featuresOf(before).dates, fact.dates).length > 0) return false;
  if (someoneElseBefore(collapseKeepingCase(turn).slice(start, at), factText, ownNames, needle)) return false;
  if (tenseDiffers(needle, factText) || unitsDropped(needle, factText)) return false;
  const quoteWords = new Set(tokenize(normalize(quote)));
  const quoted = featuresOf(quote);
  return (
    [...fact.names].every((name) => quoteWords.has(name) || normalize(quote).includes(name)) &&
    difference(fact.numbers, quoted.numbers).length === 0 &&
    difference(fact.dates, quoted.dates).length === 0
  );
}

/** "Tom wrote to me: …", "my boss said …", 他说：…: what follows is someone else's words, not the user's. */
const SPEECH_VERB =
  /(\p{L}+)\s+(?:says|said|wrote|writes|tells me|told me|texted|emailed|messaged|replied|posted|forwarded)\b(?:\s+(?:to\s+)?(?:me|us))?[^.!?]*$/iu;

function reportedBySomeoneElse(before: string): boolean {
  const match = SPEECH_VERB.exec(before);
  if (match !== null && match[1]?.toLowerCase() !== "i") return true;
  return /([^我\s])(?:说|写道|写着|告诉我)[:：，,]?\s*$/u.test(before);
}

/** True when the quote lies within one user turn, is substantial, and says the fact there. */
export function userStated(
  quote: string,
  factText: string,
  excerpt: string,
  ownNames: readonly string[] = [],
): boolean {
  return (
    isSubstantialQuote(quote, factText) &&
    userTurns(excerpt).some((turn) => claimedBy(turn, quote, factText, ownNames))
  );
}

/**
 * The model's importance, capped by what the evidence supports: "critical" needs a user-stated fact
 * whose quote says it matters (an allergy, "never", "important"…), otherwise it is "high"; an
 * inferred fact is at most "normal".
 */
export function cappedImportance(
  importance: Importance,
  evidence: EvidenceKind,
  quote: string | null,
): Importance {
  if (evidence === "inferred") return importance === "low" ? "low" : "normal";
  if (importance === "critical" && !(quote !== null && CRITICAL_MARKERS.test(quote))) return "high";
  return importance;
}

export function attribute(
  claimed: { text: string; evidence: EvidenceKind; importance: Importance; sourceQuote: string },
  excerpt: string,
  ownNames: readonly string[] = [],
): { evidence: EvidenceKind; importance: Importance } {
  const evidence: EvidenceKind =
    claimed.evidence === "user-stated" && userStated(claimed.sourceQuote, claimed.text, excerpt, ownNames)
      ? "user-stated"
      : "inferred";
  return { evidence, importance: cappedImportance(claimed.importance, evidence, claimed.sourceQuote) };
}
