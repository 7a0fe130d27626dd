import { describe, expect, it } from "vitest";
import { contentWords, distinctiveWords, valueWords, wordScrubber } from "../../src/memory/forget-words.js";
import { makeHarness } from "./store/harness.js";

const claim = (text: string) =>
  ({ userKey: "owner", text, kind: "fact", importance: "normal", evidence: "user-stated" }) as const;

describe("the forgotten fact's distinctive words", () => {
  it("are its content words that no remaining memory holds (the other memory keeps its words)", async () => {
    const { service, database } = makeHarness();
    const target = (await service.remember(claim("The user's locker code word is zebraquartz"))).memory;
    await service.remember(claim("My gym locker code word is walrusmint"));
    expect(distinctiveWords(database, [target.text], target.id)).toEqual(["zebraquartz"]);
  });

  it("Chinese words are segmented; the word for 'user' never counts", () => {
    expect(contentWords("用户对芒果过敏")).toEqual(expect.arrayContaining(["芒果", "过敏"]));
    expect(contentWords("用户对芒果过敏")).not.toContain("用户");
    expect(contentWords("The user's code is zebraquartz")).toEqual(["code", "zebraquartz"]);
  });
});

describe("the word scrubber", () => {
  const scrubber = wordScrubber(["locker", "zebraquartz"], "[forgotten]");
  if (!scrubber) throw new Error("a scrubber for two words");

  it("in a source conversation, erases every word in any casing and in JSON \\u escapes", () => {
    expect(
      scrubber.all(
        'ZEBRAQUARTZ as well, {"a":"\\u007a\\u0065\\u0062\\u0072\\u0061\\u0071\\u0075\\u0061\\u0072\\u0074\\u007a"}',
      ),
    ).toBe('[forgotten] as well, {"a":"[forgotten]"}');
  });

  it("elsewhere, only where the words come together: the fact repeated, not an unrelated mention", () => {
    expect(scrubber.together("LOCKER CODE:   ZebraQuartz\nI cleaned my locker today.")).toBe(
      "[forgotten] CODE:   [forgotten]\nI cleaned my locker today.",
    );
    // Words inside another word are not the word.
    expect(scrubber.together("lockers and zebraquartzite")).toBe("lockers and zebraquartzite");
  });

  it("a fact with one distinctive word erases it wherever it stands", () => {
    const one = wordScrubber(["zebraquartz"], "[forgotten]");
    expect(one?.together("the word was Zebraquartz!")).toBe("the word was [forgotten]!");
  });

  it("one distinctive word among several content words goes only where another of the fact's words stands", () => {
    // "lives" is held by another memory: only "paris" is distinctive, but "lives" still places it.
    const paris = wordScrubber(["paris"], "[forgotten]", ["lives", "paris"]);
    expect(paris?.together("My trip to Paris was great.\nShe lives in Paris now.")).toBe(
      "My trip to Paris was great.\nShe lives in [forgotten] now.",
    );
    expect(paris?.all("My trip to Paris")).toBe("My trip to [forgotten]");
  });
});

describe("in the fact's own conversation, its value goes everywhere, its other words only together", () => {
  const fact = ["The user's locker code word is zebraquartz", "my locker code word is zebraquartz"];
  const words = ["locker", "code", "word", "zebraquartz"];
  const values = valueWords(fact, words);
  const scrubber = wordScrubber(words, "[forgotten]", words, values);
  if (!scrubber) throw new Error("a scrubber for four words");

  it("the value is the word after 'is'; a name or a code counts too", () => {
    expect(values).toEqual(["zebraquartz"]);
    expect(valueWords(["The user lives in Paris"], ["lives", "paris"])).toEqual(["paris"]);
    expect(
      valueWords(["The user's wifi password tulip42 works"], ["wifi", "password", "tulip42", "works"]),
    ).toEqual(["tulip42"]);
    expect(valueWords(["用户对芒果过敏"], ["芒果", "过敏"])).toEqual(["芒果", "过敏"]);
    // No value found: every distinctive word counts as one.
    expect(valueWords(["The user likes green tea"], ["likes", "green", "tea"])).toEqual([
      "likes",
      "green",
      "tea",
    ]);
  });

  it("another question in the same chat keeps its words; the value alone and the fact repeated go", () => {
    expect(scrubber.all("Can you write code for my website?")).toBe("Can you write code for my website?");
    expect(scrubber.all("ZEBRAQUARTZ as well")).toBe("[forgotten] as well");
    expect(scrubber.all("Your LOCKER code word: noted.")).toBe(
      "Your [forgotten] [forgotten] [forgotten]: noted.",
    );
  });
});
