import { analyze } from "../text/analyze.js";

/**
 * Time as words. A document that happened at a known moment (an episode's turn time, a memory's
 * validity start, a benchmark session's date) is indexed with the weekday, day of the month, month
 * and year it happened on, as words of its own text, so a question that names a time ("what did I
 * do in May 2023?", "on Saturday") matches documents of that time. Only the ISO timestamp drives it,
 * whatever produced it: the live store's turn times and the dates a benchmark passes in are used the
 * same way, and no data set's date format is parsed here.
 *
 * These few words also lengthen every dated document alike, which tempers BM25's preference for
 * the very shortest turns ("Wow!") a little; the ablation in BENCHMARKS.md measures both effects
 * together, on both dev sets.
 */
export const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
] as const;

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const;

/** Parses an ISO-8601 timestamp; undefined for anything else (a wrong time is worse than none). */
export function parseOccurredAt(value: string | undefined | null): Date | undefined {
  if (value === undefined || value === null || !/^\d{4}-\d{2}-\d{2}/.test(value)) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Analyzed terms for the weekday, day, month and year of a moment (UTC). */
export function timeTerms(occurredAt: string | undefined | null): string[] {
  const date = parseOccurredAt(occurredAt);
  if (!date) return [];
  return analyze(
    `${WEEKDAYS[date.getUTCDay()]} ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`,
  );
}

const TIME_WORDS: ReadonlySet<string> = new Set(analyze(`${MONTHS.join(" ")} ${WEEKDAYS.join(" ")}`));

/**
 * Whether an analyzed query term is one of the words timeTerms() indexes: a month, a weekday, a day
 * of the month (1–31) or a year (four digits).
 */
export function isTimeTerm(term: string): boolean {
  if (TIME_WORDS.has(term)) return true;
  if (!/^\d{1,4}$/.test(term)) return false;
  const value = Number(term);
  return term.length === 4 ? value >= 1000 : value >= 1 && value <= 31;
}

/**
 * How a query's time words may rank a document when the rest of the query matches something
 * (search-index-core.ts rankWithTimeBound): "off" — they are words like any other; "tier" — a
 * document matched by time words alone follows every document the rest matches; "cap" — that, and a
 * document's score from time words is at most its score from the rest.
 */
export type TimeBound = "off" | "tier" | "cap";
export const DEFAULT_TIME_BOUND: TimeBound = "cap";

/**
 * Splits weighted query terms into time terms and the rest (what the question is about). Session
 * 12: time words are when a document happened, not what it says, so search-index-core.ts lets them
 * at most double a document's score from the rest of the query, never stand in for it — a question
 * whose month is misremembered ("what did Ann say in March about the garden", said in April) must
 * still find the garden before every other turn of March.
 */
export function splitTimeTerms(weights: ReadonlyMap<string, number>): {
  time: Map<string, number>;
  topic: Map<string, number>;
} {
  const time = new Map<string, number>();
  const topic = new Map<string, number>();
  for (const [term, weight] of weights) (isTimeTerm(term) ? time : topic).set(term, weight);
  return { time, topic };
}
