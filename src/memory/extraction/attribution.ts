import { difference, featuresOf } from "../consolidation/features.js";
import type { EvidenceKind, Importance } from "../store/types.js";
import { analyze, isCjk, normalize, tokenize } from "../text/index.js";

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

function collapse(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
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
  return carried / factTerms.size >= MIN_CONTENT_SHARE;
}

/** Words before a quote that make it something other than the user's own claim. */
const NOT_A_CLAIM =
  /\b(?:if|suppose|supposing|imagine|pretend|wish|hypothetically|whether|maybe|perhaps|might|would|could)\b|如果|假如|假设|要是|也许|可能/iu;
const SENTENCE_END = /[.!?。！？\n]/u;
const OPENING_QUOTES = /["'“‘«「『>]\s*$/u;

/**
 * The fact is what the user claimed with these words: the sentence holding the quote is not a
 * question, the quote is not reported speech (inside quotation marks, after "> "), nothing before it
 * in the sentence makes it hypothetical ("if", "imagine") or about someone else ("my brother and I"),
 * the negation or "no longer" agrees with the fact's, and every name, number and date of the fact is
 * in the quote ("I live in" does not state "lives in Madrid").
 */
export function claimedBy(turn: string, quote: string, factText: string): boolean {
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
  const said = featuresOf(`${before}${needle}`);
  const fact = featuresOf(factText);
  if ((said.negated || said.past) !== (fact.negated || fact.past)) return false;
  if (difference(said.persons, fact.persons).length > 0) return false;
  const quoteWords = new Set(tokenize(normalize(quote)));
  const quoted = featuresOf(quote);
  return (
    [...fact.names].every((name) => quoteWords.has(name) || normalize(quote).includes(name)) &&
    difference(fact.numbers, quoted.numbers).length === 0 &&
    difference(fact.dates, quoted.dates).length === 0
  );
}

/** True when the quote lies within one user turn, is substantial, and says the fact there. */
export function userStated(quote: string, factText: string, excerpt: string): boolean {
  return (
    isSubstantialQuote(quote, factText) && userTurns(excerpt).some((turn) => claimedBy(turn, quote, factText))
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
): { evidence: EvidenceKind; importance: Importance } {
  const evidence: EvidenceKind =
    claimed.evidence === "user-stated" && userStated(claimed.sourceQuote, claimed.text, excerpt)
      ? "user-stated"
      : "inferred";
  return { evidence, importance: cappedImportance(claimed.importance, evidence, claimed.sourceQuote) };
}
