import { readFileSync } from "node:fs";
import { z } from "zod";
import { MONTHS } from "../search/time-terms.js";

const turnSchema = z.object({
  speaker: z.string(),
  dia_id: z.string(),
  text: z.string(),
  blip_caption: z.string().optional().nullable(),
});

const qaSchema = z.object({
  question: z.string(),
  // Evidence is a list in the data; a few items hold several ids in one string ("D8:6; D9:17").
  evidence: z.array(z.string()).default([]),
  category: z.number().int(),
  // LongMemEval's question type, kept by the conversion: a split the benchmark reports.
  type: z.string().optional(),
});

const conversationSchema = z.object({
  sample_id: z.string(),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(z.looseObject(qaSchema.shape)),
});

export type Turn = z.infer<typeof turnSchema>;

export interface Session {
  index: number;
  dateTime: string | undefined;
  /** dateTime as ISO-8601 (UTC), what the index receives as a turn's time; undefined if unreadable. */
  occurredAt: string | undefined;
  turns: Turn[];
}

export interface Question {
  question: string;
  category: number;
  /** Normalized evidence ids ("D<session>:<turn>") that are turns of the conversation. */
  evidence: string[];
  /** The source's own question type when it has one (LongMemEval's `type`), for per-split reports. */
  type?: string;
}

export interface Conversation {
  sampleId: string;
  sessions: Session[];
  questions: Question[];
  /** Questions skipped because none of their evidence ids is a turn of the conversation. */
  skipped: number;
}

export class BenchDataError extends Error {
  override name = "BenchDataError";
}

export function loadLocomo(path: string): Conversation[] {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (error) {
    throw new BenchDataError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new BenchDataError(`${path} is not JSON: ${(error as Error).message}`);
  }
  return parseLocomo(json, path);
}

export function parseLocomo(json: unknown, source = "data"): Conversation[] {
  const parsed = z.array(conversationSchema).safeParse(json);
  if (!parsed.success) {
    throw new BenchDataError(
      `${source} is not LoCoMo-format data (an array of {sample_id, conversation, qa}): ${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data.map((item) => {
    const sessions = sessionsOf(item.conversation, item.sample_id);
    const turnIds = new Set(
      sessions.flatMap((session) => session.turns.map((turn) => normalizeEvidenceId(turn.dia_id))),
    );
    const questions: Question[] = [];
    let skipped = 0;
    for (const qa of item.qa) {
      if (qa.category < 1 || qa.category > 4) continue;
      const evidence = [
        ...new Set(
          qa.evidence
            .flatMap(splitEvidence)
            .map(normalizeEvidenceId)
            .filter((id): id is string => id !== undefined && turnIds.has(id)),
        ),
      ];
      if (evidence.length === 0) {
        skipped++;
        continue;
      }
      const question: Question = { question: qa.question, category: qa.category, evidence };
      if (qa.type !== undefined) question.type = qa.type;
      questions.push(question);
    }
    return { sampleId: item.sample_id, sessions, questions, skipped };
  });
}

function sessionsOf(conversation: Record<string, unknown>, sampleId: string): Session[] {
  const sessions: Session[] = [];
  for (const [key, value] of Object.entries(conversation)) {
    const match = /^session_(\d+)$/.exec(key);
    if (!match) continue;
    const turns = z.array(turnSchema).safeParse(value);
    if (!turns.success) {
      throw new BenchDataError(`${sampleId}.${key} is not a list of turns: ${z.prettifyError(turns.error)}`);
    }
    const index = Number(match[1]);
    const dateTime = conversation[`${key}_date_time`];
    const text = typeof dateTime === "string" ? dateTime : undefined;
    sessions.push({ index, dateTime: text, occurredAt: parseSessionTime(text), turns: turns.data });
  }
  return sessions.sort((a, b) => a.index - b.index);
}

export function splitEvidence(value: string): string[] {
  return value.split(/[;\s,]+/).filter((part) => part !== "");
}

/** "D1:3", "D:1:3", "D01:003" -> "D1:3"; anything else -> undefined. */
export function normalizeEvidenceId(value: string): string | undefined {
  const match = /^D:?0*(\d+):0*(\d+)$/i.exec(value.trim());
  if (!match) return undefined;
  return `D${Number(match[1])}:${Number(match[2])}`;
}

/**
 * The data format's session time ("1:56 pm on 8 May, 2023", shared/bench/README.md, for both
 * LoCoMo and the converted LongMemEval) as ISO-8601 UTC; undefined when it does not read as one.
 * Only the benchmark loader knows this format: the search engine sees ISO times, as the live
 * store's turn times are.
 */
export function parseSessionTime(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})\s*$/i.exec(value);
  if (!match) return undefined;
  const [, hourText, minuteText, half, dayText, monthText, yearText] = match;
  const month = (MONTHS as readonly string[]).indexOf((monthText ?? "").toLowerCase());
  if (month < 0) return undefined;
  const hour = (Number(hourText) % 12) + ((half ?? "").toLowerCase() === "pm" ? 12 : 0);
  const time = Date.UTC(Number(yearText), month, Number(dayText), hour, Number(minuteText));
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}
