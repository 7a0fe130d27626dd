import { normalize } from "../text/analyze.js";
import { type ChangeReading, readChange } from "./change.js";
import { difference, featuresOf } from "./features.js";

/**
 * A change said in one clause of a longer statement: "I no longer go to the gym; I cancelled my
 * membership in October", "我不再吃素了，今年春天开始吃鱼". The whole statement's extra clause (when,
 * why, what instead) hides the change from a reading of the whole; a reading of each clause finds it.
 *
 * Only when the rest of the statement cannot make the clause someone else's or conditional: no
 * question, wish, plan or condition anywhere in it, no person the stored statement does not name (a
 * "she", "the doctor said", "my friend"), no reported or quoted speech, and no contrast ("but",
 * "still", 但是, 还) that may keep part of the stored state. Otherwise the whole reading stands.
 */
export function readChangeOfAnyClause(newerText: string, olderText: string): ChangeReading {
  const whole = readChange(newerText, olderText);
  if (whole.kind === "update") return whole;
  const parts = clausesOf(newerText);
  if (parts.length < 2 || !clausesMayStandAlone(newerText, olderText)) return whole;
  for (const part of parts) {
    const reading = readChange(part, olderText);
    if (reading.kind === "update") {
      return { kind: "update", reason: `${reading.reason} (in the clause "${part}")` };
    }
  }
  return whole;
}

/** Clause breaks: a semicolon, a comma before a new subject, a dash, "so", Chinese commas. */
const CLAUSE_BREAK = /\s*(?:[;；，]|,\s*(?:so\s+)?|\s[-–—]\s|\bso\b)\s*/u;

function clausesOf(text: string): string[] {
  return text
    .split(CLAUSE_BREAK)
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/** Reported or quoted speech, or a contrast that may keep part of the stored state. */
const NOT_ALONE =
  /["“”«»「」]|\b(?:said|says|told|tells|wrote|writes|texted|thinks|thought|heard|but|still|except|only|though|although|however)\b|说|告诉|听说|觉得|认为|但|可是|不过|还是|仍然|依然|只/u;

function clausesMayStandAlone(newerText: string, olderText: string): boolean {
  if (NOT_ALONE.test(normalize(newerText)) || NOT_ALONE.test(newerText)) return false;
  const newer = featuresOf(newerText);
  const older = featuresOf(olderText);
  if (difference(newer.modality, older.modality).length > 0) return false;
  if (newer.tense === "future" && older.tense !== "future") return false;
  if (newer.additive) return false;
  return difference(newer.persons, older.persons).length === 0;
}
