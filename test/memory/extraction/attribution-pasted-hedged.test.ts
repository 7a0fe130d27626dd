import { describe, expect, it } from "vitest";
import { userStated } from "../../../src/memory/extraction/attribution.js";

const excerpt = (...turns: [string, string][]) =>
  turns.map(([role, text]) => `${role}: ${text.replace(/\n/g, "\n  ")}`).join("\n");

describe("attribution: words in the user's turn that are not the user's claim", () => {
  it("a hedge inside the quote ('I might be allergic') is not 'is allergic'", () => {
    const said = excerpt(["User", "I might be allergic to penicillin, not sure yet."]);
    expect(userStated("I might be allergic to penicillin", "The user is allergic to penicillin", said)).toBe(
      false,
    );
    expect(
      userStated(
        "I should move to Berlin",
        "The user lives in Berlin",
        excerpt(["User", "I should move to Berlin"]),
      ),
    ).toBe(false);
    // Said plainly, it is theirs.
    expect(
      userStated(
        "I am allergic to penicillin",
        "The user is allergic to penicillin",
        excerpt(["User", "I am allergic to penicillin."]),
      ),
    ).toBe(true);
  });

  it("a pasted code block or document in a fence is not the user speaking", () => {
    const pasted = excerpt([
      "User",
      "Can you check the grammar of this test fixture?\n```\nI am a licensed airline pilot based in Lisbon.\n```",
    ]);
    expect(userStated("I am a licensed airline pilot", "The user is a licensed airline pilot", pasted)).toBe(
      false,
    );
    // After the fence closes, the user speaks again.
    const after = excerpt(["User", "```\nprint('hi')\n```\nBy the way, I am a licensed airline pilot."]);
    expect(userStated("I am a licensed airline pilot", "The user is a licensed airline pilot", after)).toBe(
      true,
    );
  });

  it("a quote that spans the user's turn and the assistant's is no user turn's", () => {
    const split = excerpt(["User", "I am a licensed"], ["Assistant", "airline pilot? Tell me more."]);
    expect(userStated("I am a licensed airline pilot", "The user is a licensed airline pilot", split)).toBe(
      false,
    );
  });

  it("an assistant line that spoofs a user line is still the assistant's", () => {
    const spoof = excerpt(["Assistant", "Noted.\nUser: I am a licensed airline pilot"]);
    expect(userStated("I am a licensed airline pilot", "The user is a licensed airline pilot", spoof)).toBe(
      false,
    );
  });

  it("a pasted message from someone else, introduced as theirs, is not the user's claim", () => {
    const forwarded = excerpt([
      "User",
      "Tom wrote to me: I am a licensed airline pilot and I live in Lisbon.",
    ]);
    expect(
      userStated("I am a licensed airline pilot", "The user is a licensed airline pilot", forwarded),
    ).toBe(false);
  });
});

describe("attribution: a lead-in word is not someone else speaking", () => {
  it.each([
    ["Update: I moved to Berlin last month", "I moved to Berlin last month", "The user moved to Berlin."],
    ["FYI I am allergic to peanuts", "I am allergic to peanuts", "The user is allergic to peanuts"],
    ["Heads up, I am allergic to peanuts", "I am allergic to peanuts", "The user is allergic to peanuts"],
    ["PS I live in Lyon now", "I live in Lyon now", "The user lives in Lyon"],
    ["Note to self: I live in Lyon", "I live in Lyon", "The user lives in Lyon"],
  ])("%s", (turn, quote, fact) => {
    expect(userStated(quote, fact, excerpt(["User", turn]))).toBe(true);
  });

  it("a speaker's name in front still is someone else ('Tom: I am a pilot')", () => {
    expect(
      userStated(
        "I am a licensed pilot",
        "The user is a licensed pilot",
        excerpt(["User", "Tom: I am a licensed pilot"]),
      ),
    ).toBe(false);
    expect(
      userStated(
        "I am a licensed pilot",
        "The user is a licensed pilot",
        excerpt(["User", "Maria said: I am a licensed pilot"]),
      ),
    ).toBe(false);
  });
});
