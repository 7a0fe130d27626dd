import { describe, expect, it } from "vitest";
import { readChange } from "../../../src/memory/consolidation/change.js";
import { judgeByRules } from "../../../src/memory/consolidation/fallback.js";
import { guardJudgement } from "../../../src/memory/consolidation/guards.js";
import type { Verdict } from "../../../src/memory/consolidation/judge.js";

// Adversarial cases written for the change-of-state reading and the guards on a lying judge; none
// is taken from issue 11. `stored` was remembered first, `said` later by the same person.

function modelSays(verdict: Verdict, stored: string, said: string): Verdict {
  return guardJudgement({ verdict, reason: "scripted", by: "model" }, said, stored).verdict;
}

describe("a stated change of the same subject and attribute is an update without a model", () => {
  const updates: [string, string][] = [
    ["I prefer window seats", "I changed my mind, I prefer aisle seats now"],
    ["My favourite band is Radiohead", "These days my favourite band is Muse"],
    ["I live in Denver", "I moved to Austin in March"],
    ["I work at Deloitte", "I no longer work at Deloitte"],
    ["I am vegetarian", "I'm not vegetarian anymore"],
    ["My wife's sister lives in Oslo", "My wife's sister moved to Bergen"],
    ["Karen lives in Leeds", "Karen moved to York"],
    ["I'm based in Lisbon", "Not anymore, I'm based in Porto now"],
    ["I sleep 6 hours a night", "These days I sleep 8 hours a night"],
    ["I don't eat fish", "I eat fish now"],
    ["我喜欢喝咖啡", "我改主意了，现在喜欢喝茶"],
    ["我住在上海", "我已经搬到杭州了"],
    ["我在腾讯工作", "我不在腾讯工作了"],
    ["My son is 9", "My son turned 10"],
    ["I'm 34", "I'm 35 now"],
    ["Our wedding is on June 14", "Our wedding got postponed to September 6"],
    ["Meeting with the accountant is on March 4", "The accountant meeting was moved to March 11"],
  ];
  it.each(updates)("%s / %s", (stored, said) => {
    expect(readChange(said, stored).kind).toBe("update");
    expect(judgeByRules(said, stored).verdict).toBe("update");
  });
});

describe("change words about another subject, object, time scope or a history are never an update", () => {
  const notUpdates: [string, string][] = [
    ["My wife prefers aisle seats", "I changed my mind, I prefer window seats now"],
    ["My brother moved to Austin", "I moved to Austin"],
    ["Karen lives in Leeds", "Tom moved to York"],
    ["Maria moved to Lima", "Carlos moved to Lima"],
    ["I switched to decaf", "I switched to Linux"],
    ["I no longer eat pork", "I no longer eat beef"],
    ["I used to play tennis", "I used to play golf"],
    ["These days I'm reading Dune", "These days I'm reading Neuromancer"],
    ["I moved to Berlin in 2015", "I moved to Munich in 2019"],
    ["Jake no longer works at Intel", "Jake's wife no longer works at Intel"],
    ["I prefer coffee in the morning", "These days I prefer tea in the evening"],
    ["我妹妹现在住在广州", "我哥哥现在住在广州"],
    ["I live in Leeds", "Karen moved to York"],
    ["We moved to Ghent", "I moved to Ghent"],
    ["I have a meeting on Monday", "I have another meeting on Friday"],
    ["I visited Rome in 2019", "I visited Rome again in 2023"],
    ["I live in Paris", "I moved my office to Lyon"],
    ["我住在北京", "我的公司搬到了上海"],
    ["I speak French", "I now speak Spanish"],
    ["My favourite food is sushi", "My favourite drink is now tea"],
    ["I prefer window seats on long flights", "I now prefer aisle seats on short flights"],
    ["My cat is called Tom", "My new cat is called Jerry"],
  ];
  it.each(notUpdates)("%s / %s", (stored, said) => {
    expect(readChange(said, stored).kind).not.toBe("update");
    expect(judgeByRules(said, stored).verdict).not.toBe("update");
    expect(judgeByRules(said, stored).verdict).not.toBe("same");
  });

  it("a stated present that only adds a fact is a second fact, not a conflict", () => {
    expect(judgeByRules("I now work at Google and teach at MIT", "I work at Google").verdict).toBe(
      "different",
    );
  });

  it("'I'm' inside a sentence is the speaker, not a name: a correction by negation is a conflict", () => {
    expect(judgeByRules("Actually I'm not allergic to latex", "I'm allergic to latex").verdict).toBe(
      "contradiction",
    );
  });

  it("a multi-fact statement is flagged, not superseded, by a change of one of its facts", () => {
    expect(judgeByRules("I moved to Milan", "I live in Rome and work at FAO").verdict).toBe("contradiction");
  });
});

describe("pronoun subjects are persons", () => {
  it.each([
    ["She is a nurse", "He is a nurse"],
    ["She lives in Paris", "They live in Paris"],
    ["她是护士", "他是护士"],
  ])("%s / %s: never the same claim", (stored, said) => {
    expect(judgeByRules(said, stored).verdict).toBe("different");
    expect(modelSays("same", stored, said)).toBe("different");
    expect(modelSays("update", stored, said)).toBe("different");
  });
  it("a pronoun pointing back inside the statement does not change the subject", () => {
    expect(judgeByRules("I don't have a dog anymore, he passed away", "I have a dog").verdict).not.toBe(
      "different",
    );
  });
});

describe("a lying judge cannot supersede across a negation or a number, nor confirm a correction", () => {
  it.each([
    ["I like horror films", "I don't like horror films"],
    ["我喜欢吃辣", "我不喜欢吃辣"],
    ["I was never married", "I am married"],
    ["My daughter Zoe is 12", "My daughter Zoe is 14"],
    ["I have 2 children", "I have 3 children"],
    ["I was born in Lyon", "I was born in Paris"],
  ])("%s / %s: update becomes a conflict", (stored, said) => {
    expect(modelSays("update", stored, said)).toBe("contradiction");
  });

  it.each([
    ["I switched to decaf", "I switched to Linux"],
    ["Maria moved to Lima", "Carlos moved to Lima"],
  ])("%s / %s: update is refused", (stored, said) => {
    expect(["different", "contradiction"]).toContain(modelSays("update", stored, said));
  });

  it("a correction judged same is a conflict, not a confirmation", () => {
    expect(modelSays("same", "My locker is B12", "Actually it's B21")).toBe("contradiction");
  });

  it.each([
    ["I have a cat", "I have a cat allergy"],
    ["My neighbor has a loud dog", "My neighbor has a quiet cat"],
  ])("%s / %s: a same that adds or swaps words keeps both", (stored, said) => {
    expect(modelSays("same", stored, said)).toBe("different");
  });

  it("a stated change still lets the model's update stand", () => {
    expect(
      modelSays("update", "I am allergic to amoxicillin", "I'm not allergic to amoxicillin anymore"),
    ).toBe("update");
    expect(modelSays("update", "My rent is $1500 a month", "My rent is now $1650 a month")).toBe("update");
  });
});

describe("tense, codes and currencies are part of the claim", () => {
  it.each([
    ["Anna is my wife", "Anna was my wife", "contradiction"],
    ["I'll be in Paris on Monday", "I was in Paris on Monday", "different"],
    ["I owe Jake $40", "I owe Jake €40", "different"],
    ["My wifi password is Tulip42", "My wifi password is tulip42", "contradiction"],
  ])("%s / %s: never the same claim (rules: %s)", (stored, said, verdict) => {
    expect(judgeByRules(said, stored).verdict).toBe(verdict);
    expect(modelSays("same", stored, said)).not.toBe("same");
    expect(modelSays("update", stored, said)).not.toBe("same");
  });
  it("a unit written apart is still the same claim", () => {
    expect(judgeByRules("I take 20 mg of Lipitor", "I take 20mg of Lipitor").verdict).toBe("same");
  });
});
