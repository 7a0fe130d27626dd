import { describe, expect, it } from "vitest";
import { judgeByRules } from "../../../src/memory/consolidation/judge.js";
import { decideContradiction } from "../../../src/memory/consolidation/rule.js";
import type { RememberInput } from "../../../src/memory/service.js";
import { makeHarness, ScriptedModel, verdictJudge } from "./harness.js";

function claim(text: string, extra: Partial<RememberInput> = {}): RememberInput {
  return { userKey: "owner", text, kind: "fact", importance: "normal", evidence: "user-stated", ...extra };
}

describe("deterministic judge", () => {
  it("treats stemmed rewordings as the same claim", () => {
    expect(judgeByRules("I love hiking in the Alps", "I loved hikes in the alps").verdict).toBe("same");
  });

  it("detects negation on whole tokens only", () => {
    expect(judgeByRules("I do not like coffee", "I like coffee").verdict).toBe("contradiction");
    expect(judgeByRules("I don't eat meat", "I eat meat").verdict).toBe("contradiction");
    // "notes" is not "not": same claim.
    expect(judgeByRules("I keep notes in Obsidian", "I keep my notes in Obsidian").verdict).toBe("same");
  });

  it("sees differing numbers and single differing values as contradictions", () => {
    expect(judgeByRules("I have 3 kids", "I have 2 kids").verdict).toBe("contradiction");
    expect(judgeByRules("My favorite color is green", "My favorite color is blue").verdict).toBe(
      "contradiction",
    );
  });

  it("does not confuse claims that only share a word", () => {
    expect(judgeByRules("I like tea", "I like hiking with my dog").verdict).toBe("different");
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
  it("confirms a repeated fact: count + 1, both wordings in history, the user's wording kept", async () => {
    const { service, receipts, clock } = makeHarness();
    const first = await service.remember(claim("The user is vegetarian", { evidence: "inferred" }));
    clock.advanceDays(1);
    const second = await service.remember(claim("I'm vegetarian"));
    expect(second.action).toBe("confirmed");
    const memory = service.show(first.memory.id, "owner");
    expect(memory.confirmations).toBe(1);
    expect(memory.text).toBe("I'm vegetarian");
    expect(memory.evidence).toBe("user-stated");
    const history = service.history(memory.id, "owner").map((version) => [version.reason, version.text]);
    expect(history).toEqual([
      ["created", "The user is vegetarian"],
      ["confirmed", "I'm vegetarian"],
    ]);
    // A later paraphrase by the model does not replace the user's words.
    clock.advanceDays(1);
    const third = await service.remember(claim("The user is vegetarian", { evidence: "inferred" }));
    expect(third.action).toBe("confirmed");
    expect(service.show(memory.id, "owner").text).toBe("I'm vegetarian");
    expect(service.show(memory.id, "owner").confirmations).toBe(2);
    expect(service.list({ userKey: "owner" })).toHaveLength(1);
    expect(receipts.map((receipt) => receipt.kind)).toEqual(["remembered", "confirmed", "confirmed"]);
  });

  it("never lets a shorter statement erase what the longer one held (judge says same)", async () => {
    const judge = verdictJudge(() => "same");
    const { service } = makeHarness({ model: judge, judgeWithModel: true });
    const long = await service.remember(claim("My wife Anna likes sushi and ramen"));
    const short = await service.remember(claim("My wife Anna likes sushi"));
    expect(short.action).toBe("confirmed");
    expect(service.show(long.memory.id, "owner").text).toBe("My wife Anna likes sushi and ramen");
    const ramen = await service.search({ userKey: "owner", query: "ramen" });
    expect(ramen.map((result) => result.memory.id)).toEqual([long.memory.id]);
  });

  it("keeps the issue's look-alike pairs apart without a model (persons, objects, numbers, days)", async () => {
    const { service } = makeHarness();
    const pairs = [
      ["My sister lives in Paris", "My brother lives in Paris"],
      ["I like green tea", "I like black tea"],
      ["My daughter is 7 years old", "My son is 9 years old"],
      ["My wife Anna likes sushi and ramen", "My wife Anna likes sushi"],
      ["My dentist appointment is on Monday", "My dentist appointment is on Friday"],
      ["我姐姐住在巴黎", "我哥哥住在巴黎"],
    ];
    for (const [a, b] of pairs) {
      await service.remember(claim(a ?? ""));
      const outcome = await service.remember(claim(b ?? ""));
      expect(outcome.action, `${a} / ${b}`).toBe("created");
    }
    for (let n = 1; n <= 20; n++) {
      const outcome = await service.remember(claim(`Extra fact ${n}: my locker code word is zanzibar${n}`));
      expect(outcome.action).toBe("created");
    }
    expect(service.list({ userKey: "owner" })).toHaveLength(32);
    expect((await service.search({ userKey: "owner", query: "ramen" })).length).toBe(1);
  });

  it("supersedes the issue's missed updates without a model when the words say the state changed", async () => {
    const { service } = makeHarness();
    await service.remember(claim("The user lives in Paris."));
    expect((await service.remember(claim("The user moved to Berlin."))).action).toBe("superseded");
    await service.remember(claim("I am allergic to peanuts"));
    const allergy = await service.remember(
      claim("I am not allergic to peanuts anymore, the test was negative"),
    );
    expect(allergy.action).toBe("superseded");
    // Without a change word, a negation is a conflict: both kept and shown.
    await service.remember(claim("I like horror films"));
    expect((await service.remember(claim("I don't like horror films"))).action).toBe("conflict");
    expect(service.conflicts("owner")).toHaveLength(1);
    expect(service.list({ userKey: "owner" }).map((memory) => memory.text)).toEqual(
      expect.arrayContaining([
        "The user moved to Berlin.",
        "I am not allergic to peanuts anymore, the test was negative",
        "I like horror films",
        "I don't like horror films",
      ]),
    );
    expect(service.list({ userKey: "owner" })).toHaveLength(4);
  });

  it("the same fact said twice by the user becomes user-confirmed", async () => {
    const { service } = makeHarness();
    const first = await service.remember(claim("I live in Lisbon"));
    await service.remember(claim("I live in Lisbon"));
    expect(service.show(first.memory.id, "owner").evidence).toBe("user-confirmed");
  });

  it("supersedes when the judge says update, keeping the old one with its validity closed", async () => {
    const { service, receipts, clock } = makeHarness({
      model: verdictJudge(() => "update"),
      judgeWithModel: true,
    });
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
      memoryId: outcome.memory.id,
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
    // Repeating one side confirms it but settles nothing: only the user (resolve) or a judged update does.
    await service.remember(claim("I drink coffee"));
    expect(service.conflicts("owner")).toHaveLength(1);
  });

  it("uses the model judge in one batched call; after one failed repair the pair waits in the queue", async () => {
    let broken = true;
    const judge = new ScriptedModel((request) => {
      if (broken) return { ok: true, text: "I think they are the same" };
      const judgements = [...request.prompt.matchAll(/^\[(\d+)\] (.*)$/gm)].map((match) => ({
        id: Number(match[1]),
        verdict: match[2]?.includes("Paris") ? "update" : "different",
        reason: "one city at a time",
      }));
      return { ok: true, text: JSON.stringify({ judgements }) };
    });
    const { service } = makeHarness({ model: judge, judgeWithModel: true });
    const paris = await service.remember(claim("I live in Paris now"));
    const berlin = await service.remember(claim("I live in Berlin now"));
    // Never a guess: both stay current, the pair is queued, the failure recorded.
    expect(berlin).toMatchObject({ action: "created", queued: true });
    expect(judge.requests).toHaveLength(2);
    expect(judge.requests[1]?.prompt).toMatch(/previous answer was rejected/);
    expect(service.list({ userKey: "owner" })).toHaveLength(2);
    const stats = service.stats(null);
    expect(stats.extraction.recentFailures[0]?.stage).toBe("judge");
    expect(stats.extraction.recentFailures[0]?.reason).toMatch(/after one repair.*waits in the judge queue/);
    expect(service.judgeQueue.count("owner")).toBe(1);
    // The judge is back: the queued pair is judged and applied.
    broken = false;
    const drained = await service.runJudgeQueue();
    expect(drained).toEqual({ judged: 1, stillWaiting: 0 });
    expect(service.show(paris.memory.id, "owner").supersededBy).toBe(berlin.memory.id);
    expect(service.list({ userKey: "owner" }).map((memory) => memory.text)).toEqual(["I live in Berlin now"]);
  });

  it("repairs an answer that misses an id, and guards a 'same' across different people", async () => {
    let calls = 0;
    const judge = new ScriptedModel(() => {
      calls++;
      return calls === 1
        ? { ok: true, text: '{"judgements":[]}' }
        : {
            ok: true,
            text: '```json\n{"judgements":[{"id":1,"verdict":"same","reason":"both in Paris"}]}\n```',
          };
    });
    const { service } = makeHarness({ model: judge, judgeWithModel: true });
    await service.remember(claim("My sister lives in Paris"));
    const brother = await service.remember(claim("My brother lives in Paris"));
    expect(brother.action).toBe("created");
    expect(judge.requests).toHaveLength(2);
    expect(service.stats(null).extraction.failures).toBe(0);
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
    const judge = verdictJudge((_said, stored) => (stored.includes("sedan") ? "same" : "different"));
    const { service, index } = makeHarness({ model: judge, judgeWithModel: true }, { embedder });
    const first = await service.remember(claim("I drive a sedan"));
    await service.remember(claim("My sister plays violin"));
    await index.embedPending();
    const second = await service.remember(claim("My vehicle is an automobile"));
    expect(second.action).toBe("confirmed");
    expect(second.memory.id).toBe(first.memory.id);
    expect(judge.requests.some((request) => request.prompt.includes("I drive a sedan"))).toBe(true);
  });

  it("does not call the judge when the budget is spent; the conservative rules decide", async () => {
    const judge = verdictJudge(() => "update");
    let budget = true;
    const { service } = makeHarness({ model: judge, judgeWithModel: true, canSpend: () => budget });
    await service.remember(claim("I live in Paris now"));
    expect((await service.remember(claim("I live in Berlin now"))).action).toBe("superseded");
    const calls = judge.requests.length;
    budget = false;
    await service.remember(claim("My favorite color is blue"));
    expect((await service.remember(claim("My favorite color is green"))).action).toBe("conflict");
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
