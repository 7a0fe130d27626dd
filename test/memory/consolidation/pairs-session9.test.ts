import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPairs, runPair, runPairsBench } from "../../../src/memory/bench/statement-pairs.js";

// A held-out set written and labelled before the fallback was run on it (session 9), in a chat style the
// earlier sets do not use ("Btw, …", "Heads up, …", "The user …", 对了，…): swapped names in comparisons
// and debts, kinship in four languages, currencies and units of one number, dates written two ways,
// updates said with other verbs (got promoted, sold my Civic, switched to, no longer works at, retired,
// divorced, quit, 离职, 戒烟, 退休, se jubiló, in Rente, a pris sa retraite).
const pairs = loadPairs(join(import.meta.dirname, "../fixtures/statement-pairs-session9.jsonl"));

describe("session 9 held-out pairs (test/memory/fixtures/statement-pairs-session9.jsonl)", () => {
  it.each(["rules", "oracle", "noisy", "liar"] as const)(
    "%s: no wrong supersession, no wrong confirmation, nothing lost",
    async (mode) => {
      const report = await runPairsBench(pairs, mode);
      expect(report.pairs).toBeGreaterThanOrEqual(200);
      expect(report.wrongSupersessions).toBe(0);
      expect(report.wrongConfirmations).toBe(0);
      expect(report.failures.map((failure) => `${failure.pair.id} ${failure.action}`)).toEqual([]);
      // Before the session-9 fixes the fallback superseded 8 of the 53 updates (and flagged 14).
      if (mode === "rules") expect(report.updates.superseded).toBeGreaterThanOrEqual(11);
    },
  );

  it.each([
    // Swapped parties: the same words with the people in the other places is another claim.
    [
      "Quick note: my cousin Lea is taller than my cousin Max",
      "Quick note: my cousin Max is taller than my cousin Lea",
      "created",
    ],
    ["Btw, Anna is older than Ben.", "Btw, Ben is older than Anna.", "created"],
    ["对了，安娜比本大", "对了，本比安娜大", "created"],
    ["小王欠我40美元", "我欠小王40美元", "created"],
    // A list has no order: the same names joined by "and" are the same claim.
    ["I speak French and German", "I speak German and French", "confirmed"],
    // Cousins and in-laws in Chinese are other persons than the sister or brother.
    ["我表姐住在成都", "我表妹住在成都", "created"],
    // The same person retired: the work the stored statement names ended (retired.ts) …
    ["My grandfather Walter works as a carpenter", "My grandfather Walter retired last spring", "superseded"],
    ["Mi abuelo trabaja de panadero", "Mi abuelo se jubiló en enero", "superseded"],
    ["Mein Opa arbeitet als Schreiner", "Mein Opa ist letztes Jahr in Rente gegangen", "superseded"],
    // … but never another person's work, nor work the retirement does not name.
    ["My grandfather Walter works as a carpenter", "My grandmother Ruth retired last spring", "created"],
    ["I work as a nurse at St. Mary's", "I retired from the army in 2019", "created"],
    // A comparison turned round is a contradiction to review; an attributive "older sister" is another person.
    ["Anna is older than Ben", "Anna is younger than Ben", "conflict"],
    ["安娜比本大两岁", "安娜比本小两岁", "conflict"],
    ["My older sister lives in Lima", "My younger sister lives in Lima", "created"],
  ])("%s / %s -> %s", async (stored, said, action) => {
    const label =
      action === "confirmed"
        ? "same"
        : action === "superseded"
          ? "update"
          : action === "conflict"
            ? "contradiction"
            : "different";
    const outcome = await runPair({ id: 1, label, lang: "en", stored, said }, "rules");
    expect(outcome.action).toBe(action);
  });

  it("liar: 表姐 -> 表妹 is never an update, whatever the model says", async () => {
    const outcome = await runPair(
      { id: 135, label: "different", lang: "zh", stored: "我表姐住在成都", said: "我表妹住在成都" },
      "liar",
    );
    expect(outcome.action).not.toBe("superseded");
    expect(outcome.informationLost).toBe(false);
  });
});
