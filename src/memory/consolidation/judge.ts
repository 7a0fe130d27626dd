import { z } from "zod";
import type { MemoryModel } from "../extraction/model.js";
import { stripCodeFence } from "../extraction/schema.js";
import { analyze, cosineOfCounts, hasNegation, termCounts, tokenize } from "../text/index.js";

export type Verdict = "same" | "contradicts" | "unrelated";

export interface Judgement {
  verdict: Verdict;
  /** Why, in words: shown in conflicts and logs. */
  reason: string;
  by: "model" | "rules";
}

/**
 * Thresholds of the deterministic judge, over the cosine of stemmed content-term counts with
 * numbers taken out (numbers are compared as values, separately).
 *   >= SAME: same topic and wording close enough to be one claim
 *   >= TOPIC: about the same thing; a differing negation or number makes it a contradiction
 */
export const SAME_THRESHOLD = 0.75;
export const TOPIC_THRESHOLD = 0.5;

const NUMBER = /^\d+(?:[.,]\d+)?$/;

function contentCounts(text: string) {
  const terms = analyze(text);
  const numbers = new Set(terms.filter((term) => NUMBER.test(term)).map((term) => term.replace(",", ".")));
  const words = termCounts(terms.filter((term) => !NUMBER.test(term)));
  return { numbers, words };
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((value) => b.has(value));
}

/**
 * Deterministic same/contradicts/unrelated. Negation is decided on whole tokens ("notes" is not
 * "not"); similarity is over stemmed content words ("loves hiking" = "loved hikes"); two claims
 * that share a frame but differ in one value each ("favorite color is blue" / "... green") are a
 * contradiction, while claims that merely share one word are unrelated.
 */
export function judgeByRules(candidate: string, existing: string): Judgement {
  const a = contentCounts(candidate);
  const b = contentCounts(existing);
  const similarity = cosineOfCounts(a.words, b.words);
  const negA = hasNegation(tokenize(candidate));
  const negB = hasNegation(tokenize(existing));
  const numbersDiffer = a.numbers.size > 0 && b.numbers.size > 0 && !sameSet(a.numbers, b.numbers);
  if (similarity >= TOPIC_THRESHOLD) {
    if (negA !== negB) {
      return { verdict: "contradicts", reason: "one claim negates the other", by: "rules" };
    }
    if (numbersDiffer) {
      return {
        verdict: "contradicts",
        reason: `different values: ${[...a.numbers].join(", ")} vs ${[...b.numbers].join(", ")}`,
        by: "rules",
      };
    }
    if (similarity >= SAME_THRESHOLD) return { verdict: "same", reason: "same content words", by: "rules" };
    const onlyA = [...a.words.keys()].filter((term) => !b.words.has(term));
    const onlyB = [...b.words.keys()].filter((term) => !a.words.has(term));
    const shared = [...a.words.keys()].filter((term) => b.words.has(term));
    if (shared.length >= 2 && onlyA.length === 1 && onlyB.length === 1) {
      return { verdict: "contradicts", reason: `different values: ${onlyA[0]} vs ${onlyB[0]}`, by: "rules" };
    }
  }
  return { verdict: "unrelated", reason: `similarity ${similarity.toFixed(2)}`, by: "rules" };
}

const judgeOutputSchema = z.strictObject({
  verdict: z.enum(["same", "contradicts", "unrelated"]),
  reason: z.string().min(1).max(300),
});

export const JUDGE_SYSTEM = `You compare two statements about the same user.
Answer ONLY with JSON: {"verdict":"same|contradicts|unrelated","reason":"short explanation"}
- same: both say the same thing (possibly in other words)
- contradicts: both cannot be true at the same time
- unrelated: anything else (different topics, or compatible facts)`;

export type ModelJudgement = { ok: true; judgement: Judgement } | { ok: false; raw: string; problem: string };

/** Asks the model; any failure (provider, JSON, schema) is returned for the caller to record. */
export async function judgeByModel(
  model: MemoryModel,
  candidate: string,
  existing: string,
  signal?: AbortSignal,
): Promise<ModelJudgement> {
  const result = await model.complete({
    system: JUDGE_SYSTEM,
    prompt: `Statement A (new): ${candidate}\nStatement B (stored): ${existing}`,
    ...(signal ? { signal } : {}),
  });
  if (!result.ok) return { ok: false, raw: "", problem: `provider failed: ${result.cause}` };
  let value: unknown;
  try {
    value = JSON.parse(stripCodeFence(result.text));
  } catch (error) {
    return { ok: false, raw: result.text, problem: `judge output is not JSON (${String(error)})` };
  }
  const parsed = judgeOutputSchema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      raw: result.text,
      problem: `judge output does not match the schema (${parsed.error.message})`,
    };
  }
  return { ok: true, judgement: { ...parsed.data, by: "model" } };
}
