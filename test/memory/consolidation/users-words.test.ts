import { describe, expect, it } from "vitest";
import { makeHarness } from "../store/harness.js";

// The extraction rewrites the user's words into a fact and may drop the change words on the way
// ("I changed my mind, I prefer coffee now" -> "The user prefers coffee"). The user's own quote,
// checked as theirs by attribution, still says the stored fact changed.

const fact = (text: string, quote: string | null, evidence: "user-stated" | "inferred" = "user-stated") => ({
  userKey: "owner",
  text,
  kind: "preference" as const,
  importance: "normal" as const,
  evidence,
  quote,
});

describe("a change the extraction dropped is read from the user's own quote", () => {
  it("supersedes without a model when the quote says the same attribute changed", async () => {
    const { service, clock } = makeHarness();
    await service.remember(fact("The user prefers tea", "I prefer tea"));
    clock.advanceDays(1);
    const outcome = await service.remember(
      fact("The user prefers coffee", "I changed my mind, I prefer coffee now"),
    );
    expect(outcome.action).toBe("superseded");
    expect(service.list({ userKey: "owner" }).map((memory) => memory.text)).toEqual([
      "The user prefers coffee",
    ]);
  });

  it.each([
    // The quote is about someone else than the fact.
    ["The user prefers tea", "The user prefers coffee", "My wife changed her mind, she prefers coffee now"],
    // The fact's new value is not in the quote.
    ["The user prefers tea", "The user prefers cocoa", "I changed my mind, I prefer coffee now"],
    // No change words in the quote either.
    ["The user prefers tea", "The user prefers coffee", "I prefer coffee"],
  ])("%s / %s (quote %j): both kept", async (stored, said, quote) => {
    const { service, clock } = makeHarness();
    await service.remember(fact(stored, null));
    clock.advanceDays(1);
    const outcome = await service.remember(fact(said, quote));
    expect(outcome.action).not.toBe("superseded");
    expect(service.list({ userKey: "owner" })).toHaveLength(2);
  });

  it("an inferred fact's quote is not the user's word", async () => {
    const { service, clock } = makeHarness();
    await service.remember(fact("The user prefers tea", "I prefer tea"));
    clock.advanceDays(1);
    const outcome = await service.remember(
      fact("The user prefers coffee", "I changed my mind, I prefer coffee now", "inferred"),
    );
    expect(outcome.action).not.toBe("superseded");
    expect(service.list({ userKey: "owner" }).map((memory) => memory.text)).toContain("The user prefers tea");
  });
});
