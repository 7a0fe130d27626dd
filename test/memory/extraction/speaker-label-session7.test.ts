import { describe, expect, it } from "vitest";
import { attribute, userStated } from "../../../src/memory/extraction/attribution.js";
import { ownNamesOf } from "../../../src/memory/extraction/speaker-label.js";

const excerpt = (...turns: [string, string][]) =>
  turns.map(([role, text]) => `${role}: ${text.replace(/\n/g, "\n  ")}`).join("\n");
const pilot = ["I am a licensed pilot", "The user is a licensed pilot"] as const;

describe("attribution: a 'Name:' line in the user's turn is someone else's speech", () => {
  it.each([
    ["Tom: I am a licensed pilot"],
    // Lower case and kin words were not taken for speakers before (only a capitalised name was).
    ["tom: I am a licensed pilot"],
    ["mom: I am a licensed pilot"],
    ["My boss: I am a licensed pilot"],
    ["Dr. Lee: I am a licensed pilot"],
    ["@ana_b: I am a licensed pilot"],
    ["- Carlos: I am a licensed pilot"],
    // A bare label above a pasted message: every line up to a blank line is theirs.
    ["Tom:\nHi there.\nI am a licensed pilot"],
    // A label that was in the old list of lead-ins is still a speaker when it names no note.
    ["Hello: I am a licensed pilot"],
  ])("%j is relayed: recorded as inferred", (turn) => {
    expect(userStated(pilot[0], pilot[1], excerpt(["User", turn]))).toBe(false);
  });

  it.each([
    ["Update: I am a licensed pilot"],
    ["Note: I am a licensed pilot"],
    ["PS: I am a licensed pilot"],
    ["Quick update: I am a licensed pilot"],
    ["Me: I am a licensed pilot"],
    ["Also: I am a licensed pilot"],
    // A blank line ends the relayed block: the user speaks again.
    ["Tom:\nHi there.\n\nI am a licensed pilot"],
    // A colon inside a sentence is no label, nor the user's own "I told them:".
    ["At noon I told them: I am a licensed pilot"],
    ["I told them: I am a licensed pilot"],
  ])("%j is the user's own claim", (turn) => {
    expect(userStated(pilot[0], pilot[1], excerpt(["User", turn]))).toBe(true);
  });

  it("a lower-case label over words about someone else is still the label's ('tom: she moved…')", () => {
    const said = excerpt(["User", "tom: she moved to Rome last week"]);
    expect(userStated("she moved to Rome last week", "She moved to Rome", said)).toBe(false);
    expect(
      userStated(
        "she moved to Rome last week",
        "She moved to Rome",
        excerpt(["User", "Oh, she moved to Rome last week"]),
      ),
    ).toBe(true);
  });

  it("the user's own name or handle as a label is the user", () => {
    const turn = excerpt(["User", "Ana: I am a licensed pilot"]);
    expect(userStated(pilot[0], pilot[1], turn)).toBe(false);
    expect(userStated(pilot[0], pilot[1], turn, ["ana"])).toBe(true);
    expect(userStated(pilot[0], pilot[1], excerpt(["User", "@ana: I am a licensed pilot"]), ["ana"])).toBe(
      true,
    );
    expect(ownNamesOf("telegram:ana")).toEqual(["ana"]);
    expect(ownNamesOf("telegram:123456")).toEqual([]);
  });

  it("a field label the user writes is their note ('Allergies: …'); with a speaker's 'I' after it, it is relayed", () => {
    const fact = "The user is allergic to peanuts";
    expect(
      userStated(
        "Allergies: peanuts and shellfish",
        fact,
        excerpt(["User", "Allergies: peanuts and shellfish"]),
      ),
    ).toBe(true);
    expect(
      userStated("I am allergic to peanuts", fact, excerpt(["User", "Maria: I am allergic to peanuts"])),
    ).toBe(false);
  });

  it("a relayed fact is inferred and its importance capped", () => {
    const claimed = {
      text: "The user is allergic to peanuts",
      evidence: "user-stated" as const,
      importance: "critical" as const,
      sourceQuote: "I am allergic to peanuts",
    };
    expect(attribute(claimed, excerpt(["User", "Maria: I am allergic to peanuts"]))).toEqual({
      evidence: "inferred",
      importance: "normal",
    });
    expect(attribute(claimed, excerpt(["User", "Update: I am allergic to peanuts"]))).toEqual({
      evidence: "user-stated",
      importance: "critical",
    });
  });
});
