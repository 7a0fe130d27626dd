import { describe, expect, it } from "vitest";
import { judgeByRules } from "../../../src/memory/consolidation/judge.js";
import { decideContradiction } from "../../../src/memory/consolidation/rule.js";
import type { RememberInput } from "../../../src/memory/service.js";
import { makeHarness, ScriptedModel } from "./harness.js";

function claim(text: string, extra: Partial<RememberInput> = {}): RememberInput {
  return { userKey: "owner", text, kind: "fact", importance: "normal", evidence: "user-stated", ...extra };
}

describe("deterministic judge", () => {
  it("treats stemmed rewordings as the same claim", () => {
    expect(judgeByRules("I love hiking in the Alps", "I loved hikes in the alps").verdict).toBe("same");
  });

  it("detects negation on whole tokens only", () => {
    expect(judgeByRules("I do not like coffee", "I like coffee").verdict).toBe("contradicts");
    expect(judgeByRules("I don't eat meat", "I eat meat").verdict).toBe("contradicts");
    // "notes" is not "not": same claim.
    expect(judgeByRules("I keep notes in Obsidian", "I keep my notes in Obsidian").verdict).toBe("same");
  });

  it("sees differing numbers and single differing values as contradictions", () => {
    expect(judgeByRules("I have 3 kids", "I have 2 kids").verdict).toBe("contradicts");
    expect(judgeByRules("My favorite color is green", "My favorite color is blue").verdict).toBe(
      "contradicts",
    );
  });

  it("does not confuse claims that only share a word", () => {
    expect(judgeByRules("I like tea", "I like hiking with my dog").verdict).toBe("unrelated");
  });
});

describe("contradiction rule", () => {
  const at = "2026-01-01T00:00:00.000Z";
  const later = "2026-02-01T00:00:00.000Z";
  it("never lets one inference overturn a user-stated or confirmed claim", () => {
    const inferred = {
      evidence: "inferred" as const,
      confirmations: 0,
      importance: "critical" as const,
      statedAt: later,
    };
    expect(
      decideContradiction(
        { evidence: "user-stated", confirmations: 0, importance: "low", statedAt: at },
        inferred,
      ).winner,
    ).toBe("existing");
    expect(
      decideContradiction(
        { evidence: "inferred", confirmations: 2, importance: "low", statedAt: at },
        inferred,
      ).winner,
    ).toBe("existing");
  });
  it("lets the user's latest statement win among user statements", () => {
    expect(
      decideContradiction(
        { evidence: "user-confirmed", confirmations: 4, importance: "high", statedAt: at },
        { evidence: "user-stated", confirmations: 0, importance: "normal", statedAt: later },
      ).winner,
    ).toBe("incoming");
  });
  it("is undecidable on equal weak evidence", () => {
    expect(
      decideContradiction(
        { evidence: "inferred", confirmations: 0, importance: "normal", statedAt: at },
        { evidence: "inferred", confirmations: 0, importance: "normal", statedAt: later },
      ).winner,
    ).toBe("undecidable");
  });
});

describe("consolidation against the store", () => {
  it("confirms a repeated fact: count + 1, both wordings in history, newest user wording kept (not the longest)", async () => {
    const { service, receipts, clock } = makeHarness();
    const first = await service.remember(
      claim("I am vegetarian and have been for many long years now", { evidence: "inferred" }),
    );
    clock.advanceDays(1);
    const second = await service.remember(claim("I'm vegetarian for many years"));
    expect(second.action).toBe("confirmed");
    const memory = service.show(first.memory.id, "owner");
    expect(memory.confirmations).toBe(1);
    expect(memory.text).toBe("I'm vegetarian for many years");
    expect(memory.evidence).toBe("user-stated");
    const history = service.history(memory.id, "owner").map((version) => [version.reason, version.text]);
    expect(history).toEqual([
      ["created", "I am vegetarian and have been for many long years now"],
      ["confirmed", "I'm vegetarian for many years"],
    ]);
    // A later paraphrase by the model does not replace the user's words.
    clock.advanceDays(1);
    const third = await service.remember(
      claim("The user is vegetarian for many years", { evidence: "inferred" }),
    );
    expect(third.action).toBe("confirmed");
    expect(service.show(memory.id, "owner").text).toBe("I'm vegetarian for many years");
    expect(service.show(memory.id, "owner").confirmations).toBe(2);
    expect(service.list({ userKey: "owner" })).toHaveLength(1);
    expect(receipts.map((receipt) => receipt.kind)).toEqual(["remembered", "confirmed", "confirmed"]);
  });

  it("the same fact said twice by the user becomes user-confirmed", async () => {
    const { service } = makeHarness();
    const first = await service.remember(claim("I live in Lisbon"));
    await service.remember(claim("I live in Lisbon"));
    expect(service.show(first.memory.id, "owner").evidence).toBe("user-confirmed");
  });

  it("supersedes on a user's newer contradicting statement, keeping the old one with its validity closed", async () => {
    const { service, receipts, clock } = makeHarness();
    const old = await service.remember(claim("My favorite color is blue"));
    clock.advanceDays(10);
    const outcome = await service.remember(claim("My favorite color is green", { validFrom: "2026-01-10" }));
    expect(outcome.action).toBe("superseded");
    const previous = service.show(old.memory.id, "owner");
    expect(previous.supersededBy).toBe(outcome.memory.id);
    expect(previous.validTo).toBe("2026-01-10");
    expect(previous.supersededAt).toBe(clock.now().toISOString());
    expect(service.list({ userKey: "owner" }).map((memory) => memory.text)).toEqual([
      "My favorite color is green",
    ]);
    expect(service.list({ userKey: "owner", includeSuperseded: true })).toHaveLength(2);
    expect(service.history(old.memory.id, "owner").map((version) => version.reason)).toEqual([
      "created",
      "superseded",
    ]);
    expect(receipts.at(-1)).toEqual({
      kind: "updated",
      userKey: "owner",
      text: "Updated: My favorite color is green (was: My favorite color is blue)",
    });
    // Superseded memories are not recalled, but search can still show them on request.
    const recalled = await service.recall({ userKey: "owner", query: "favorite color", tokenBudget: 500 });
    expect(recalled.memoryIds).toEqual([outcome.memory.id]);
    const all = await service.search({ userKey: "owner", query: "favorite color", includeSuperseded: true });
    expect(all.map((result) => result.memory.id).sort()).toEqual([old.memory.id, outcome.memory.id].sort());
  });

  it("does not let one inference overturn a confirmed memory", async () => {
    const { service, receipts } = makeHarness();
    const confirmed = await service.remember(claim("I have 2 kids", { evidence: "inferred" }));
    await service.remember(claim("I have 2 kids", { evidence: "inferred" }));
    const attempt = await service.remember(
      claim("I have 3 kids", { evidence: "inferred", importance: "critical" }),
    );
    expect(attempt.action).toBe("kept-existing");
    const kept = service.show(confirmed.memory.id, "owner");
    expect(kept.supersededAt).toBeNull();
    expect(kept.contradictions).toBe(1);
    expect(kept.confirmations).toBe(1);
    if (attempt.action !== "kept-existing") throw new Error("unreachable");
    // The rejected claim is kept as history, superseded by the memory that won.
    expect(service.show(attempt.rejected.id, "owner").supersededBy).toBe(kept.id);
    expect(service.list({ userKey: "owner" }).map((memory) => memory.text)).toEqual(["I have 2 kids"]);
    expect(receipts.at(-1)?.text).toMatch(/^Kept: I have 2 kids/);
  });

  it("keeps both and lists a conflict when the evidence is equal", async () => {
    const { service, receipts } = makeHarness();
    const a = await service.remember(claim("The user does not drink coffee", { evidence: "inferred" }));
    const b = await service.remember(claim("The user drinks coffee", { evidence: "inferred" }));
    expect(b.action).toBe("conflict");
    const conflicts = service.conflicts("owner");
    expect(conflicts).toHaveLength(1);
    expect([conflicts[0]?.a.id, conflicts[0]?.b.id].sort()).toEqual([a.memory.id, b.memory.id].sort());
    expect(service.list({ userKey: "owner" })).toHaveLength(2);
    expect(receipts.at(-1)?.text).toMatch(/conflicts with/);
    // A user's statement settles it: the conflict disappears from the list.
    await service.remember(claim("I drink coffee"));
    expect(service.conflicts("owner")).toHaveLength(0);
  });

  it("uses the model judge when configured and falls back to the rules (recorded) when it fails", async () => {
    const judge = new ScriptedModel((request) =>
      request.prompt.includes("Berlin")
        ? { ok: true, text: '{"verdict":"contradicts","reason":"one city at a time"}' }
        : { ok: true, text: "I think they are the same" },
    );
    const { service } = makeHarness({ model: judge, judgeWithModel: true });
    await service.remember(claim("I live in Paris now"));
    const moved = await service.remember(claim("I live in Berlin now"));
    expect(moved.action).toBe("superseded");
    await service.remember(claim("I enjoy jazz music a lot"));
    const again = await service.remember(claim("I enjoy jazz music a lot"));
    expect(again.action).toBe("confirmed");
    const stats = service.stats(null);
    expect(stats.extraction.recentFailures[0]?.stage).toBe("judge");
    expect(stats.extraction.recentFailures[0]?.reason).toMatch(/not JSON.*deterministic rules/);
  });

  it("judges a vector neighbour that shares no words (synonyms) when an embedder is configured", async () => {
    // A deterministic fake embedder: texts about vehicles share one direction, the rest another.
    const embedder = {
      id: "fake-synonyms",
      dimensions: 4,
      async embed(texts: string[]) {
        return texts.map((text) =>
          /sedan|automobile|vehicle/i.test(text)
            ? new Float32Array([1, 0, 0, 0])
            : new Float32Array([0, 1, 0, 0]),
        );
      },
    };
    const judge = new ScriptedModel(() => ({
      ok: true,
      text: '{"verdict":"same","reason":"a sedan is an automobile"}',
    }));
    const { service, index } = makeHarness({ model: judge, judgeWithModel: true }, { embedder });
    const first = await service.remember(claim("I drive a sedan"));
    await service.remember(claim("My sister plays violin"));
    await index.embedPending();
    const second = await service.remember(claim("My vehicle is an automobile"));
    expect(second.action).toBe("confirmed");
    expect(second.memory.id).toBe(first.memory.id);
    expect(judge.requests.some((request) => request.prompt.includes("I drive a sedan"))).toBe(true);
  });

  it("accepts a fenced judge answer, and does not call the judge when the budget is spent", async () => {
    const judge = new ScriptedModel(() => ({
      ok: true,
      text: '```json\n{"verdict":"contradicts","reason":"one city"}\n```',
    }));
    let budget = true;
    const { service } = makeHarness({ model: judge, judgeWithModel: true, canSpend: () => budget });
    await service.remember(claim("I live in Paris now"));
    expect((await service.remember(claim("I live in Berlin now"))).action).toBe("superseded");
    const calls = judge.requests.length;
    budget = false;
    // The rules decide without the model: one differing value in the same frame.
    await service.remember(claim("My favorite color is blue"));
    expect((await service.remember(claim("My favorite color is green"))).action).toBe("superseded");
    expect(judge.requests).toHaveLength(calls);
    expect(service.stats(null).extraction.failures).toBe(0);
  });

  it("serializes concurrent saves of the same fact into one memory and a confirmation", async () => {
    const { service } = makeHarness();
    const [a, b] = await Promise.all([
      service.remember(claim("I play the cello")),
      service.remember(claim("I play the cello")),
    ]);
    expect([a.action, b.action]).toEqual(["created", "confirmed"]);
    expect(service.list({ userKey: "owner" })).toHaveLength(1);
  });

  it("a failing save does not block the ones queued behind it", async () => {
    const judge = new ScriptedModel(() => {
      throw new Error("judge adapter crashed");
    });
    const { service } = makeHarness({ model: judge, judgeWithModel: true });
    await service.remember(claim("I play the oboe"));
    const results = await Promise.allSettled([
      service.remember(claim("I play the oboe daily")),
      service.remember(claim("I like green tea")),
    ]);
    expect(results[0]).toMatchObject({ status: "rejected", reason: new Error("judge adapter crashed") });
    expect(results[0]?.status).toBe("rejected");
    expect(results[1]?.status).toBe("fulfilled");
  });

  it("keeps each person's memories apart during consolidation", async () => {
    const { service } = makeHarness();
    await service.remember(claim("My favorite color is blue"));
    const member = await service.remember(claim("My favorite color is green", { userKey: "telegram:123" }));
    expect(member.action).toBe("created");
    expect(service.list({ userKey: "owner" }).map((memory) => memory.text)).toEqual([
      "My favorite color is blue",
    ]);
  });
});
