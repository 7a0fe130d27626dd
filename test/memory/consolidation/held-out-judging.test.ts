import { describe, expect, it } from "vitest";
import { judgeByRules } from "../../../src/memory/consolidation/fallback.js";
import { guardJudgement } from "../../../src/memory/consolidation/guards.js";
import type { Verdict } from "../../../src/memory/consolidation/judge.js";

// Cases written after the issue, not taken from it: other relations, attributes and phrasings.
// `stored` was remembered first, `said` later by the same person.

/** What a model that lies would achieve: its verdict after the guards. */
function modelSays(verdict: Verdict, stored: string, said: string): Verdict {
  return guardJudgement({ verdict, reason: "scripted", by: "model" }, said, stored).verdict;
}

describe("a person word changed by a modifier or a plural is another person", () => {
  const pairs: [string, string][] = [
    ["My ex-wife lives in Lyon", "My wife lives in Lyon"],
    ["My ex-boyfriend works at Amazon", "My boyfriend works at Amazon"],
    ["My late grandfather was a carpenter", "My grandfather is a carpenter"],
    ["My sisters live in Rome", "My sister lives in Rome"],
    ["My parents live in Ohio", "My mother lives in Ohio"],
    ["I have two sons", "I have a son"],
  ];
  it.each(pairs)("%s / %s: the rules keep both, and a model's same or update is refused", (stored, said) => {
    expect(judgeByRules(said, stored).verdict).toBe("different");
    expect(modelSays("same", stored, said)).toBe("different");
    expect(modelSays("update", stored, said)).toBe("different");
  });

  it("the same plural said twice is still the same claim", () => {
    expect(judgeByRules("I have 3 kids", "I have three kids").verdict).toBe("same");
    expect(judgeByRules("My sisters live in Rome.", "my sisters live in Rome").verdict).toBe("same");
  });
});

describe("a model's update needs a change on the statements' own words", () => {
  const notUpdates: [string, string][] = [
    ["I have two cats", "I have two dogs"],
    ["My locker code is 4471", "My bike lock code is 4471"],
    ["My wife Anna likes sushi", "My wife Anna likes ramen"],
    ["I work with .NET", "I work with node.js"],
    ["My son plays the piano", "My son plays the violin"],
    ["I have a dentist appointment on Monday", "I have a dentist appointment on Friday"],
    ["I visited Rome in 2019", "I visited Rome in 2023"],
    ["I speak French", "I now speak German too"],
    ["I have a meeting with Bob at 3pm", "I have a meeting with Alice at 3pm"],
    ["My son Leo is allergic to nuts", "My son Max is allergic to nuts"],
  ];
  it.each(notUpdates)("%s / %s: a model's update is refused, both kept", (stored, said) => {
    expect(modelSays("update", stored, said)).toBe("different");
  });

  const updates: [string, string][] = [
    ["The user works at Shell", "The user switched jobs and now works at BP"],
    ["My dentist appointment is on Monday", "My dentist appointment was moved to Friday"],
    ["My girlfriend Anna is a nurse", "My wife Anna is a nurse"],
    ["My wifi password is tulip42", "My wifi password is daisy42"],
    ["I live in Paris", "I moved to Berlin last month"],
    ["I work at Google", "I quit my job at Google"],
    ["我最喜欢的颜色是蓝色", "我最喜欢的颜色是绿色"],
  ];
  it.each(updates)("%s / %s: a model's update stands", (stored, said) => {
    expect(modelSays("update", stored, said)).toBe("update");
  });

  // A number, a negation or a change the words cannot place: a model's "update" is shown as a
  // conflict (both kept) unless the new statement itself says the value changed.
  const conflicts: [string, string][] = [
    ["My son is 9", "My son is 10"],
    ["I weigh 80 kg", "I weigh 75 kg"],
    ["I take 20mg of Lipitor daily", "I take 40mg of Lipitor daily"],
    ["I use an iPhone", "I switched to Android"],
  ];
  it.each(conflicts)("%s / %s: a model's update becomes a conflict", (stored, said) => {
    expect(modelSays("update", stored, said)).toBe("contradiction");
  });
  it("a number with a change word is an update again", () => {
    expect(modelSays("update", "I weigh 80 kg", "These days I weigh 75 kg")).toBe("update");
  });
});

describe("the rules supersede the end of a state or a stated change of the same attribute", () => {
  const endings: [string, string][] = [
    ["I work at Google", "I quit my job at Google"],
    ["I smoke", "I quit smoking"],
    ["I eat meat", "I stopped eating meat"],
    ["I am married to Tom", "I divorced Tom"],
    ["The user is single", "The user got married"],
    ["I live in Paris", "I moved to Berlin last month"],
    ["The user lives in Paris.", "The user relocated to Berlin."],
  ];
  it.each(endings)("%s / %s", (stored, said) => {
    expect(judgeByRules(said, stored).verdict).toBe("update");
  });
  it("a changed number without a change word stays a conflict", () => {
    expect(judgeByRules("I take 40mg of Lipitor daily", "I take 20mg of Lipitor daily").verdict).toBe(
      "contradiction",
    );
  });
});

describe("two days of a month are two dates, not one changed number", () => {
  it("March 3 and March 10 are two appointments", () => {
    expect(
      judgeByRules("I have a dentist appointment on March 10", "I have a dentist appointment on March 3")
        .verdict,
    ).toBe("different");
    expect(
      judgeByRules(
        "I have a dentist appointment on the 3rd of March",
        "I have a dentist appointment on March 3",
      ).verdict,
    ).toBe("same");
  });

  it("a leading zero is part of a code: 0042 is not 42", () => {
    expect(judgeByRules("My PIN is 42", "My PIN is 0042").verdict).not.toBe("same");
  });
});

describe("a model's same is refused when each side names someone the other does not", () => {
  it("my boss is Tom / my new boss is Jim", () => {
    expect(modelSays("same", "My boss is Tom", "My new boss is Jim")).toBe("different");
  });
  it("a relative time on one side only keeps a same from being a confirmation", () => {
    expect(judgeByRules("I got married last month", "I got married").verdict).toBe("different");
    expect(modelSays("same", "I got married", "I got married last year")).toBe("different");
  });
});
