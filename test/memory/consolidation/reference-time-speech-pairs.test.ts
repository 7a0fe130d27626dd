import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPairs, runPairsBench } from "../../../src/memory/bench/statement-pairs.js";
import { judgeByRules } from "../../../src/memory/consolidation/fallback.js";
import { guardJudgement } from "../../../src/memory/consolidation/guards.js";
import { subjectOf } from "../../../src/memory/consolidation/roles.js";

// Written by class, held out from the other pair files: pronouns and coreference ("she moved to Rome"),
// third persons with the same attribute, the user vs others, pets, households ("we"), time-scoped facts,
// questions and hypotheticals, reported speech, negation and ending verbs (never, quit, 不再, 已经不),
// units and currencies, ranges, Spanish/German/French, lists vs items, corrections.
const pairs = loadPairs(join(import.meta.dirname, "../fixtures/statement-pairs-reference-time-speech.jsonl"));

const modelSays = (verdict: "same" | "update", stored: string, said: string) =>
  guardJudgement({ verdict, reason: "scripted", by: "model" }, said, stored).verdict;

describe("reference, time and speech pairs (test/memory/fixtures/statement-pairs-reference-time-speech.jsonl)", () => {
  it.each(["rules", "oracle", "noisy", "liar"] as const)(
    "%s: no wrong supersession, no wrong confirmation, nothing lost",
    async (mode) => {
      const report = await runPairsBench(pairs, mode);
      expect(report.pairs).toBeGreaterThanOrEqual(150);
      expect(report.failures.map((failure) => `${failure.pair.id} ${failure.action}`)).toEqual([]);
      // The plain updates (no longer, quit, stopped, 不再, 已经不, moved, "now" with a one-value attribute) are caught.
      if (mode === "rules" || mode === "oracle") expect(report.updates.superseded).toBeGreaterThanOrEqual(11);
      // Of the rest, the corrections are flagged for the user (pronouns and unread languages are not).
      if (mode === "rules")
        expect(report.updates.superseded + report.updates.flaggedAsConflict).toBeGreaterThanOrEqual(18);
    },
  );

  it("the lying judge's other lie on every pair is refused too", async () => {
    const shifted = pairs.map((pair) => ({ ...pair, id: pair.id + 1 }));
    const report = await runPairsBench(shifted, "liar");
    expect(report.failures.map((failure) => `${failure.pair.id - 1} ${failure.action}`)).toEqual([]);
  });
});

describe("the classes, one by one", () => {
  it("a question or a condition is no move: it neither updates nor confirms", () => {
    expect(judgeByRules("What if I moved to Berlin?", "I live in Paris").verdict).toBe("different");
    expect(modelSays("update", "I live in Paris", "What if I moved to Berlin?")).toBe("different");
    expect(modelSays("same", "I live in Paris", "Do I still live in Paris?")).toBe("different");
    expect(modelSays("update", "我住在巴黎", "如果我搬到柏林会怎样？")).toBe("different");
    // A statement after a question is still a move.
    expect(judgeByRules("I moved to Berlin", "I live in Paris").verdict).toBe("update");
  });

  it("the statement's subject: a name, the speaker, an animal", () => {
    expect(subjectOf("Tom is 34")).toBe("name:tom");
    expect(subjectOf("I am 34")).toBe("i");
    expect(subjectOf("My dog is allergic to chicken")).toBe("i:dog");
    expect(subjectOf("The user's dog is allergic to chicken")).toBe("i:dog");
    // An attribute, a kinship word used as a modifier, an animal as the object: still the speaker.
    expect(subjectOf("My birthday is June 1")).toBe("i");
    expect(subjectOf("My dentist appointment is on Monday")).toBe("i");
    expect(subjectOf("I have a dog")).toBe("i");
    expect(subjectOf("The user likes dogs")).toBe("i");
    // Opening words that are not a name.
    expect(subjectOf("These days my favourite band is Muse")).toBeUndefined();
    expect(subjectOf("Nowadays I commute by bike")).toBeUndefined();
    expect(subjectOf("汤姆的生日是5月3日")).toBe("name:汤姆");
    expect(subjectOf("我的狗叫旺财")).toBe("i:狗");
  });

  it("another subject with the same words is never a confirmation or an update", () => {
    expect(modelSays("same", "Tom is 34", "I am 34")).toBe("different");
    expect(modelSays("same", "My dog is allergic to chicken", "I am allergic to chicken")).toBe("different");
    expect(modelSays("update", "我的狗叫旺财", "我的猫叫旺财")).toBe("different");
    expect(modelSays("same", "汤姆的生日是5月3日", "我的生日是5月3日")).toBe("different");
  });

  it("one possessed thing is not several ('my dog' / 'my dogs')", () => {
    expect(judgeByRules("My dogs sleep in the kitchen", "My dog sleeps in the kitchen").verdict).toBe(
      "different",
    );
    expect(modelSays("update", "My dog sleeps in the kitchen", "My dogs sleep in the kitchen")).toBe(
      "different",
    );
    // The plural with and without "my" is the same notes.
    expect(judgeByRules("I keep my notes in Obsidian", "I keep notes in Obsidian").verdict).toBe("same");
  });

  it("a correction the fallback cannot place is flagged as a conflict, not left as two silent facts", () => {
    expect(judgeByRules("Sorry, I meant Lyon not Lyons", "I live in Lyons").verdict).toBe("contradiction");
    expect(judgeByRules("Correction: my flight is at 8pm", "My flight is at 7pm").verdict).toBe(
      "contradiction",
    );
    expect(judgeByRules("说错了，我住在里尔", "我住在里昂").verdict).toBe("contradiction");
    // "Actually" is a filler as often as a correction, and a correction that adds a fact adds it.
    expect(judgeByRules("Actually, I love hiking", "I love swimming").verdict).toBe("different");
    expect(judgeByRules("I meant to say I also play chess", "I play chess").verdict).toBe("different");
  });

  it("Chinese: one span swapped in the same sentence is another object, not a paraphrase", () => {
    expect(modelSays("same", "我不再喝咖啡了", "我不再喝茶了")).toBe("different");
    expect(modelSays("same", "我不再吃肉了", "我已经不吃肉了")).toBe("same");
  });
});
