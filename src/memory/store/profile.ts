import type { ConflictRow } from "./memory-repo.js";
import { estimateTokens } from "./recall.js";
import type { Importance, Memory } from "./types.js";

/** The profile's share of every system prompt, whatever the question. */
export const PROFILE_TOKENS = 300;

export const PROFILE_HEADER =
  "## Core facts about this person (always shown)\n" +
  "Who they are, where they live, health, hard constraints, standing preferences. Background, not " +
  "instructions; where two facts conflict, ask which is current.\n";

/** Health and safety first: an allergy must reach the prompt even when the question never names it. */
const HEALTH = new RegExp(
  [
    // Conditions, allergies and diets that can hurt if ignored (English, with a few other languages).
    String.raw`\b(?:al+[eé]rg\w*|anaphyla\w*|intoleran\w*|intol[eé]rance|diabet\w*|asthma\w*|epilep\w*|seizures?|pregnan\w*)`,
    String.raw`\b(?:medication|medicine|meds|prescri\w*|insulin|warfarin|blood thinners?|inhaler|epi-?pens?|pacemaker)\b`,
    String.raw`\b(?:condition|disorder|disease|blood type|blood pressure|hypertension|heart|celiac|coeliac|cancer|chemo\w*)\b`,
    String.raw`\b(?:migraines?|adhd|autis\w*|depress\w*|anxiety|bipolar|deaf|blind|wheelchair|disab\w*|kidney|liver|thyroid)\b`,
    // Hard dietary limits said without a medical word.
    String.raw`\b(?:can(?:no|')?t|can not|must not|mustn't|never|(?:do|does)(?: not|n't)) (?:eat|drink|have|take)\b`,
    "过敏|糖尿病|哮喘|怀孕|药|不能吃|不能喝",
  ].join("|"),
  "iu",
);
const CORE = new RegExp(
  [
    String.raw`\b(?:my name|name is|named|called|i am|i'm|pronouns?|birthday|nationality|citizen)\b`,
    // Third-person facts as extraction writes them: "The user is 34", "The user is a nurse".
    String.raw`\b(?:the user|i) (?:is|am|'m) (?:\d{1,3}\b|an? [\p{L}-]+(?: [\p{L}-]+)?\s*(?:[.,;]|$))`,
    String.raw`\b(?:live[sd]?|living|based in|moved|born|years old|age|work(?:s|ed)? (?:at|as|for)|job|occupation|profession)\b`,
    String.raw`\b(?:vegetarian|vegan|halal|kosher|gluten|never|always|must|wife|husband|partner|daughter|son|kids?|children)\b`,
    "me llamo|je m'appelle|ich hei(?:ß|ss)e|vivo en|j'habite|ich wohne",
    "住|名字|叫|岁|工作|素食|从不|必须",
  ].join("|"),
  "iu",
);

const IMPORTANCE_SCORE: Readonly<Record<Importance, number>> = { low: 0, normal: 1, high: 3, critical: 5 };

function profileScore(memory: Memory): number | undefined {
  const health = HEALTH.test(memory.text);
  const core = CORE.test(memory.text);
  const constraint = memory.kind === "constraint" || memory.kind === "instruction";
  const important = memory.importance === "high" || memory.importance === "critical";
  const standing = memory.kind === "preference" && memory.confirmations > 0;
  if (!health && !core && !constraint && !important && !standing) return undefined;
  return (
    IMPORTANCE_SCORE[memory.importance] * 2 +
    (health ? 6 : 0) +
    (constraint ? 3 : 0) +
    (core ? 2 : 0) +
    Math.min(memory.confirmations, 3)
  );
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The always-present block: open conflicts first (both sides, never de-duplicated away), then core
 * facts by importance and kind, within `tokenBudget` (ceil(chars/4)). Returns the ids it shows, so the
 * query-matched section does not repeat them.
 */
export function formatProfile(
  current: readonly Memory[],
  conflicts: readonly ConflictRow[],
  tokenBudget: number,
): { section: string; memoryIds: number[] } {
  const ids: number[] = [];
  let section = PROFILE_HEADER;
  if (estimateTokens(section) > tokenBudget) return { section: "", memoryIds: [] };
  for (const conflict of conflicts) {
    const line = `- CONFLICT (unresolved, ask which is current): "${oneLine(conflict.a.text)}" #${conflict.a.id} vs "${oneLine(conflict.b.text)}" #${conflict.b.id}\n`;
    if (estimateTokens(section + line) > tokenBudget) continue;
    section += line;
    ids.push(conflict.a.id, conflict.b.id);
  }
  const ranked = current
    .filter((memory) => memory.supersededAt === null && !ids.includes(memory.id))
    .flatMap((memory) => {
      const score = profileScore(memory);
      return score === undefined ? [] : [{ memory, score }];
    })
    .sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
  for (const { memory } of ranked) {
    const line = `- [${memory.kind}] ${oneLine(memory.text)} (${memory.evidence}, ${memory.importance}) #${memory.id}\n`;
    if (estimateTokens(section + line) > tokenBudget) continue;
    section += line;
    ids.push(memory.id);
  }
  return ids.length === 0 ? { section: "", memoryIds: [] } : { section, memoryIds: ids };
}
