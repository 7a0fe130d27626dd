import { describe, expect, it } from "vitest";
import { attribute, userStated } from "../../../src/memory/extraction/attribution.js";

// Cases written after the issue: the model claims "user-stated" with a quote that exists in the
// transcript but does not say the fact as the user's own claim.

const claim = (text: string, sourceQuote: string) => ({
  text,
  sourceQuote,
  evidence: "user-stated" as const,
  importance: "critical" as const,
});

describe("a quote that exists but does not state the fact is not the user's word", () => {
  const cases: [string, string, string, string][] = [
    [
      "a short common span that drops the place",
      "User: I live in Paris, but my brother lives in Madrid.\nAssistant: Nice.",
      "The user lives in Madrid",
      "but my brother lives in",
    ],
    [
      "the right words with another number",
      "User: I have 3 kids and a dog.\nAssistant: Lovely.",
      "The user has 4 kids",
      "I have 3 kids",
    ],
    [
      "a negated sentence quoted without its negation",
      "User: I am not allergic to peanuts, the test was negative.\nAssistant: Good news.",
      "The user is allergic to peanuts",
      "allergic to peanuts, the test",
    ],
    [
      "a question",
      "User: Should I move to Berlin next year?\nAssistant: It depends.",
      "The user is moving to Berlin next year",
      "move to Berlin next year",
    ],
    [
      "a hypothetical",
      "User: Imagine I was a licensed airline pilot, what would I earn?\nAssistant: About 150k.",
      "The user is a licensed airline pilot",
      "I was a licensed airline pilot",
    ],
    [
      "reported speech in quotation marks",
      'User: My colleague told me "I am allergic to shellfish" at lunch.\nAssistant: Noted.',
      "The user is allergic to shellfish",
      "I am allergic to shellfish",
    ],
    [
      "another person's sentence",
      "User: My sister and I both work at the Louvre museum.\nAssistant: Great.",
      "The user works at the Louvre museum",
      "work at the Louvre museum",
    ],
    [
      "a pasted message from someone else",
      "User: > I live in Madrid now\nthis is what Tom wrote me\nAssistant: OK.",
      "The user lives in Madrid",
      "I live in Madrid now",
    ],
    [
      "the assistant's words",
      "User: what should I cook tonight?\nAssistant: Since you are vegetarian, try a risotto.",
      "The user is vegetarian",
      "Since you are vegetarian",
    ],
    [
      "a quote made of function words",
      "User: I think that it is what it is.\nAssistant: Indeed.",
      "The user is a licensed airline pilot",
      "I think that it is",
    ],
    ["a Chinese question", "User: 我应该搬到上海吗？\nAssistant: 看情况。", "用户搬到上海", "我应该搬到上海"],
    [
      "a Chinese negation dropped",
      "User: 我对花生不过敏。\nAssistant: 好的。",
      "用户对花生过敏",
      "对花生不过敏",
    ],
  ];
  it.each(cases)("%s: recorded as inferred, not critical", (_name, excerpt, text, quote) => {
    expect(attribute(claim(text, quote), excerpt)).toEqual({ evidence: "inferred", importance: "normal" });
  });
});

describe("the user's own plain claim stays user-stated", () => {
  const cases: [string, string, string][] = [
    ["User: I live in Paris, but my brother lives in Madrid.", "The user lives in Paris", "I live in Paris"],
    ["User: I have 3 kids and a dog.", "The user has 3 kids", "I have 3 kids"],
    [
      "User: I am not allergic to peanuts anymore, the test was negative.",
      "The user is no longer allergic to peanuts",
      "I am not allergic to peanuts anymore",
    ],
    ["User: My sister lives in Lyon.", "The user's sister lives in Lyon", "My sister lives in Lyon"],
    ["User: I quit smoking last year.", "The user no longer smokes", "I quit smoking last year"],
    ["User: 我住在北京，在谷歌工作。", "用户住在北京", "我住在北京"],
    [
      "User: hi\nUser: btw I moved to Berlin in March.",
      "The user moved to Berlin in March",
      "I moved to Berlin in March",
    ],
  ];
  it.each(cases)("%s", (excerpt, text, quote) => {
    expect(userStated(quote, text, `${excerpt}\nAssistant: Noted.`)).toBe(true);
  });
});
