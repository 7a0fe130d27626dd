import { stripCodeFence } from "../extraction/code-fence.js";
import type { MemoryModel } from "../extraction/model.js";

/**
 * same: one claim (confirm). update: same subject and attribute, the new value replaces the old
 * (supersede). contradiction: both cannot hold and it is not clear which is current (conflict, both
 * kept and shown). different: both can be true (keep both).
 */
export const VERDICTS = ["same", "update", "different", "contradiction"] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface Judgement {
  verdict: Verdict;
  /** Why, in words: shown in conflicts and logs. */
  reason: string;
  by: "model" | "rules";
}

/** Built on the first model judgement: zod is loaded only when a model judges (memory add stays light). */
async function judgeOutputSchema() {
  const { z } = await import("zod");
  return z.strictObject({
    judgements: z.array(
      z.strictObject({
        id: z.number().int().positive(),
        verdict: z.enum(VERDICTS),
        reason: z.string().min(1).max(300),
      }),
    ),
  });
}
type JudgeOutputSchema = Awaited<ReturnType<typeof judgeOutputSchema>>;

export const JUDGE_SYSTEM = `You compare a NEW statement about a user with STORED statements about the same user.
Answer ONLY with JSON: {"judgements":[{"id":1,"verdict":"same|update|different|contradiction","reason":"short explanation"}]}, exactly one entry per stored statement id.
- same: both say the same thing in other words; neither holds information the other lacks
- update: same person, same attribute, the new value replaces the stored one (moved, changed job, no longer allergic, turned 8)
- contradiction: both cannot be true at once, and it is not clear that the new one replaces the stored one
- different: both can be true (another person, object, number, date, or one adds or drops details)`;

export function judgePrompt(candidate: string, stored: readonly string[]): string {
  return [`NEW: ${candidate}`, "STORED:", ...stored.map((text, index) => `[${index + 1}] ${text}`)].join(
    "\n",
  );
}

export type ModelJudgement =
  | { ok: true; judgements: Judgement[] }
  /** unusable: the provider refused for good (no credentials): trying later will not help. */
  | { ok: false; raw: string; problem: string; unusable?: boolean };

type Parsed = { ok: true; judgements: Judgement[] } | { ok: false; problem: string };

function parseJudgements(raw: string, count: number, judgeOutputSchema: JudgeOutputSchema): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(stripCodeFence(raw));
  } catch (error) {
    return { ok: false, problem: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const parsed = judgeOutputSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
      .join("; ");
    return { ok: false, problem: `does not match the schema (${issues})` };
  }
  const byId = new Map(parsed.data.judgements.map((entry) => [entry.id, entry]));
  if (byId.size !== parsed.data.judgements.length || byId.size !== count) {
    return { ok: false, problem: `expected exactly one judgement for each id 1..${count}` };
  }
  const judgements: Judgement[] = [];
  for (let id = 1; id <= count; id++) {
    const entry = byId.get(id);
    if (!entry) return { ok: false, problem: `judgement for id ${id} is missing` };
    judgements.push({ verdict: entry.verdict, reason: entry.reason, by: "model" });
  }
  return { ok: true, judgements };
}

/**
 * One batched call for a candidate against all its stored neighbours, and exactly one repair with
 * the problem spelled out. Any failure is returned (never guessed over): the caller queues the pair.
 */
export async function judgeByModel(
  model: MemoryModel,
  candidate: string,
  stored: readonly string[],
  signal?: AbortSignal,
): Promise<ModelJudgement> {
  const prompt = judgePrompt(candidate, stored);
  const options = signal ? { signal } : {};
  const schema = await judgeOutputSchema();
  const first = await model.complete({ system: JUDGE_SYSTEM, prompt, ...options });
  if (!first.ok) {
    return { ok: false, raw: "", problem: `provider failed: ${first.cause}`, unusable: !first.retryable };
  }
  const parsed = parseJudgements(first.text, stored.length, schema);
  if (parsed.ok) return parsed;
  const second = await model.complete({
    system: JUDGE_SYSTEM,
    prompt: `${prompt}\n\nYour previous answer was rejected.\nIt was:\n<<<\n${first.text}\n>>>\nProblem: ${parsed.problem}\nAnswer again with ONLY the corrected JSON object.`,
    ...options,
  });
  if (!second.ok) {
    return {
      ok: false,
      raw: first.text,
      problem: `${parsed.problem}; the repair call failed: ${second.cause}`,
    };
  }
  const repaired = parseJudgements(second.text, stored.length, schema);
  if (repaired.ok) return repaired;
  return {
    ok: false,
    raw: `--- first output ---\n${first.text}\n--- repaired output ---\n${second.text}`,
    problem: `invalid judge output after one repair: first ${parsed.problem}; repaired ${repaired.problem}`,
  };
}

export { judgeByRules } from "./fallback.js";
