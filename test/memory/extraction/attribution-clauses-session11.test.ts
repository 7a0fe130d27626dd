import { describe, expect, it } from "vitest";
import { attribute } from "../../../src/memory/extraction/attribution.js";

/**
 * Session 11 (found by the person-scope e2e test): "I live in Paris and I am allergic to penicillin"
 * stored the allergy as inferred, capped to normal importance, because "Paris" before the quote was
 * read as the sentence's subject. A name that ends a clause of its own, followed by a quote that
 * opens with "I"/"my", does not make the quote someone else's; a name framing the quote still does.
 */
const claim = (text: string, sourceQuote: string) => ({
  text,
  evidence: "user-stated" as const,
  importance: "high" as const,
  sourceQuote,
});
const turn = (said: string) => `User: ${said}\nAssistant: Noted.`;

describe("a name ending an earlier clause is not the quote's subject", () => {
  it.each([
    [
      "I live in Paris and I am allergic to penicillin",
      "The user is allergic to penicillin.",
      "I am allergic to penicillin",
    ],
    ["I moved to Berlin, and I work at Siemens now", "The user works at Siemens.", "I work at Siemens"],
    ["Anna and I live in Madrid", "The user lives in Madrid.", "I live in Madrid"],
    ["Tom, I am vegetarian", "The user is vegetarian.", "I am vegetarian"],
    [
      "I love Lisbon, and my daughter is 7 years old",
      "The user's daughter is 7 years old.",
      "my daughter is 7 years old",
    ],
  ])("%j → user-stated", (said, fact, quote) => {
    expect(attribute(claim(fact, quote), turn(said)).evidence).toBe("user-stated");
  });

  it.each([
    [
      "Tom thinks I am allergic to penicillin",
      "The user is allergic to penicillin.",
      "I am allergic to penicillin",
    ],
    [
      "My doctor Anna says I am allergic to penicillin",
      "The user is allergic to penicillin.",
      "I am allergic to penicillin",
    ],
    ["Tom is allergic to penicillin", "The user is allergic to penicillin.", "is allergic to penicillin"],
    [
      "Anna: I am a licensed airline pilot",
      "The user is a licensed airline pilot.",
      "I am a licensed airline pilot",
    ],
    ["If I lived in Rome and I had a boat", "The user has a boat.", "I had a boat"],
  ])("%j → inferred", (said, fact, quote) => {
    expect(attribute(claim(fact, quote), turn(said)).evidence).toBe("inferred");
  });
});
