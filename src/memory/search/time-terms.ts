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
