import { readFileSync } from "node:fs";
import { z } from "zod";
import type { Clock } from "../../agent/clock.js";
import { openMemoryDatabase } from "../../storage/database.js";
import { covers } from "../consolidation/features.js";
import type { Verdict } from "../consolidation/judge.js";
import type { MemoryModel, MemoryModelResult } from "../extraction/model.js";
import { SearchIndex } from "../search/search-index.js";
import { MemoryService } from "../service.js";

export const PAIR_LABELS = ["same", "update", "different", "contradiction", "subset"] as const;
export type PairLabel = (typeof PAIR_LABELS)[number];

const pairSchema = z.strictObject({
  id: z.number().int().positive(),
  label: z.enum(PAIR_LABELS),
  lang: z.enum(["en", "zh", "de", "es", "fr", "ja"]),
  /** Stored first. */
  stored: z.string().min(1),
  /** Said later by the same person. */
  said: z.string().min(1),
});
export type StatementPair = z.infer<typeof pairSchema>;

export function loadPairs(path: string): StatementPair[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, index) => {
      const parsed = pairSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${path}:${index + 1}: ${parsed.error.message}`);
      return parsed.data;
    });
}

/**
 * How a judge answers in the bench:
 *   rules   - no model: the deterministic fallback decides;
 *   oracle  - a scripted model that answers each pair's label (subset answered as "same", the
 *             natural model answer that must still not erase the longer statement);
 *   noisy   - the oracle, but every 3rd pair answers "same" and every 5th "update" whatever the
 *             truth, and every 4th first answer is broken JSON (exercises the one repair);
 *   liar    - a model that lies on every pair not labelled update: "update" on odd ids, "same" on
 *             even ones (the guards alone must keep it from superseding or confirming wrongly).
 */
export type JudgeMode = "rules" | "oracle" | "noisy" | "liar";

export interface PairOutcome {
  pair: StatementPair;
  action: string;
  wrongSupersession: boolean;
  wrongConfirmation: boolean;
  informationLost: boolean;
}

export interface PairsReport {
  mode: JudgeMode;
  pairs: number;
  wrongSupersessions: number;
  wrongConfirmations: number;
  informationLost: number;
  updates: { total: number; superseded: number; flaggedAsConflict: number };
  contradictions: { total: number; flaggedAsConflict: number };
  same: { total: number; confirmed: number };
  falseConflicts: number;
  failures: PairOutcome[];
}

const VERDICT_OF: Readonly<Record<PairLabel, Verdict>> = {
  same: "same",
  update: "update",
  different: "different",
  contradiction: "contradiction",
  subset: "same",
};

class FixedClock implements Clock {
  private current = Date.parse("2026-06-01T09:00:00.000Z");
  now(): Date {
    return new Date(this.current);
  }
  advance(): void {
    this.current += 86_400_000;
  }
}

function scriptedJudge(pair: StatementPair, mode: JudgeMode): MemoryModel {
  let calls = 0;
  return {
    async complete(request): Promise<MemoryModelResult> {
      calls++;
      if (mode === "noisy" && pair.id % 4 === 0 && calls === 1) return { ok: true, text: '{"judgements": [' };
      const stored = [...request.prompt.matchAll(/^\[(\d+)\] (.*)$/gm)];
      let verdict = VERDICT_OF[pair.label];
      if (mode === "noisy" && pair.id % 3 === 0) verdict = "same";
      else if (mode === "noisy" && pair.id % 5 === 0) verdict = "update";
      else if (mode === "liar" && pair.label !== "update") verdict = pair.id % 2 === 1 ? "update" : "same";
      const judgements = stored.map((match) => ({
        id: Number(match[1]),
        verdict: match[2] === pair.stored ? verdict : "different",
        reason: `scripted ${mode} answer`,
      }));
      return { ok: true, text: JSON.stringify({ judgements }) };
    },
  };
}

/**
 * Stores `stored`, then `said` a day later (both user-stated), through the real service. With a
 * `shared` database (one per bench run: opening one costs ~100 ms, most of a pair's time) each pair
 * has its own person scope, so pairs meet only through the word statistics of the index.
 */
export async function runPair(
  pair: StatementPair,
  mode: JudgeMode,
  shared?: ReturnType<typeof openMemoryDatabase>,
): Promise<PairOutcome> {
  const database = shared ?? openMemoryDatabase();
  const userKey = shared === undefined ? "owner" : `pair-${pair.id}`;
  try {
    const clock = new FixedClock();
    const service = new MemoryService({
      database,
      index: new SearchIndex(database),
      clock,
      ...(mode === "rules" ? {} : { model: scriptedJudge(pair, mode), judgeWithModel: true }),
    });
    const common = { userKey, kind: "fact" as const, importance: "normal" as const };
    await service.remember({ ...common, text: pair.stored, evidence: "user-stated" });
    clock.advance();
    const outcome = await service.remember({ ...common, text: pair.said, evidence: "user-stated" });
    const current = service.list({ userKey }).map((memory) => memory.text);
    const everything = current.join(" \n ");
    // Different facts and subsets must both stay findable; an update may replace, a same may reword.
    const mustKeepBoth = pair.label === "different" || pair.label === "subset";
    const informationLost =
      mustKeepBoth && !(covers(everything, pair.stored) && covers(everything, pair.said));
    const superseded = outcome.action === "superseded" || outcome.action === "kept-existing";
    return {
      pair,
      action: outcome.action,
      wrongSupersession: superseded && pair.label !== "update",
      wrongConfirmation: outcome.action === "confirmed" && pair.label !== "same" && pair.label !== "subset",
      informationLost,
    };
  } finally {
    if (shared === undefined) database.close();
  }
}

export async function runPairsBench(pairs: readonly StatementPair[], mode: JudgeMode): Promise<PairsReport> {
  const outcomes: PairOutcome[] = [];
  const database = openMemoryDatabase();
  try {
    for (const pair of pairs) outcomes.push(await runPair(pair, mode, database));
  } finally {
    database.close();
  }
  const count = (test: (outcome: PairOutcome) => boolean) => outcomes.filter(test).length;
  return {
    mode,
    pairs: outcomes.length,
    wrongSupersessions: count((o) => o.wrongSupersession),
    wrongConfirmations: count((o) => o.wrongConfirmation),
    informationLost: count((o) => o.informationLost),
    updates: {
      total: count((o) => o.pair.label === "update"),
      superseded: count((o) => o.pair.label === "update" && o.action === "superseded"),
      flaggedAsConflict: count((o) => o.pair.label === "update" && o.action === "conflict"),
    },
    contradictions: {
      total: count((o) => o.pair.label === "contradiction"),
      flaggedAsConflict: count((o) => o.pair.label === "contradiction" && o.action === "conflict"),
    },
    same: {
      total: count((o) => o.pair.label === "same"),
      confirmed: count((o) => o.pair.label === "same" && o.action === "confirmed"),
    },
    falseConflicts: count(
      (o) =>
        o.action === "conflict" &&
        (o.pair.label === "same" || o.pair.label === "different" || o.pair.label === "subset"),
    ),
    failures: outcomes.filter((o) => o.wrongSupersession || o.wrongConfirmation || o.informationLost),
  };
}
