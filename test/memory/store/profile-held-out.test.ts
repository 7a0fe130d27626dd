import { describe, expect, it } from "vitest";
import { makeHarness, ScriptedModel } from "./harness.js";

// Core facts phrased as extraction writes them ("The user …"), without the words, in other
// languages, at normal importance: they reach every prompt whatever the question.
const CORE_FACTS = [
  "I can't eat shellfish",
  "I take insulin every morning",
  "The user takes warfarin, a blood thinner",
  "The user's name is Alex Moreau",
  "The user is 34",
  "The user is a nurse",
  "Soy alérgico a la penicilina",
  "Je suis allergique aux arachides",
  "The user has high blood pressure",
  "The user carries an EpiPen",
  "The user is deaf in one ear",
  "The user uses a wheelchair",
  "The user's birthday is on 12 May",
  "The user is based in Lisbon",
  "The user does not drink alcohol",
  "用户对青霉素过敏",
];
const NOT_CORE = ["The user likes jazz", "The user bought a new lamp"];

describe("the profile holds core facts whatever the question", () => {
  it.each(CORE_FACTS)("%s reaches the prompt of an unrelated question", async (text) => {
    const { service } = makeHarness();
    await service.remember({
      userKey: "owner",
      text,
      kind: "fact",
      importance: "normal",
      evidence: "user-stated",
    });
    const recalled = await service.recall({
      userKey: "owner",
      query: "What should I cook for the neighbours on Saturday?",
      tokenBudget: 1000,
    });
    expect(recalled.section).toContain(text);
  });

  it.each(NOT_CORE)("%s stays out of the profile", async (text) => {
    const { service } = makeHarness();
    await service.remember({
      userKey: "owner",
      text,
      kind: "fact",
      importance: "normal",
      evidence: "user-stated",
    });
    expect(service.profile({ userKey: "owner" }).section).not.toContain(text);
  });
});

describe("a judge that calls a negation 'different' still leaves a visible conflict", () => {
  const pairs: [string, string, string][] = [
    ["The user eats meat", "The user stopped eating meat", "meat"],
    ["The user has a car", "The user has no car", "car"],
    ["我喜欢猫", "我不喜欢猫", "猫"],
  ];
  it.each(pairs)("%s / %s", async (first, second, query) => {
    const model = new ScriptedModel((request) => ({
      ok: true,
      text: JSON.stringify({
        judgements: [...request.prompt.matchAll(/^\[(\d+)\]/gm)].map((match) => ({
          id: Number(match[1]),
          verdict: "different",
          reason: "scripted",
        })),
      }),
    }));
    const { service, clock } = makeHarness({ model, judgeWithModel: true });
    const common = { userKey: "owner", kind: "fact" as const, importance: "normal" as const };
    await service.remember({ ...common, text: first, evidence: "user-stated" });
    clock.advanceDays(1);
    const outcome = await service.remember({ ...common, text: second, evidence: "user-stated" });
    expect(outcome.action).toBe("conflict");
    expect(service.conflicts("owner")).toHaveLength(1);
    const recalled = await service.recall({ userKey: "owner", query, tokenBudget: 1000 });
    expect(recalled.section).toContain(first);
    expect(recalled.section).toContain(second);
    expect(
      (await service.search({ userKey: "owner", query })).map((result) => result.memory.text).sort(),
    ).toEqual([first, second].sort());
  });
});
