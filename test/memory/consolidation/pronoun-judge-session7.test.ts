import { describe, expect, it } from "vitest";
import type { MemoryModelResult } from "../../../src/memory/extraction/model.js";
import { JudgeQueue } from "../../../src/memory/store/judge-queue.js";
import { makeHarness, ScriptedModel } from "../store/harness.js";

const claim = (text: string) =>
  ({ userKey: "owner", text, kind: "fact", importance: "normal", evidence: "user-stated" }) as const;

/** A judge that answers `verdict` for the stored statement `target` and "different" for the rest. */
function judgeSaying(verdict: string, target: string): ScriptedModel {
  return new ScriptedModel((request): MemoryModelResult => {
    const judgements = [...request.prompt.matchAll(/^\[(\d+)\] (.*)$/gm)].map((match) => ({
      id: Number(match[1]),
      verdict: match[2] === target ? verdict : "different",
      reason: "scripted",
    }));
    return { ok: true, text: JSON.stringify({ judgements }) };
  });
}

describe("a pronoun that may point at a stored person ('my sister Ana lives in Paris' / 'she moved to Rome')", () => {
  it("without a model both are kept: the rules never guess the antecedent", async () => {
    const { service } = makeHarness();
    await service.remember(claim("My sister Ana lives in Paris"));
    const outcome = await service.remember(claim("She moved to Rome"));
    expect(outcome.action).toBe("created");
    expect(service.list({ userKey: "owner" }).map((memory) => memory.text)).toEqual([
      "My sister Ana lives in Paris",
      "She moved to Rome",
    ]);
  });

  it("with a model the pair is put before the judge, and its 'update' supersedes the sister's fact", async () => {
    const model = judgeSaying("update", "My sister Ana lives in Paris");
    const { service } = makeHarness({ model, judgeWithModel: true });
    const sister = (await service.remember(claim("My sister Ana lives in Paris"))).memory;
    const outcome = await service.remember(claim("She moved to Rome"));
    // Before: the pair never reached the model (no shared person, too few shared words).
    expect(model.requests.some((request) => request.prompt.includes("My sister Ana lives in Paris"))).toBe(
      true,
    );
    expect(outcome, JSON.stringify(outcome)).toMatchObject({
      action: "superseded",
      previous: { id: sister.id },
    });
    expect(service.list({ userKey: "owner" }).map((memory) => memory.text)).toEqual(["She moved to Rome"]);
  });

  it("the model failing leaves the pair in the judge queue, never a guess", async () => {
    const model = new ScriptedModel((): MemoryModelResult => ({ ok: true, text: "not json at all" }));
    const { service, database } = makeHarness({ model, judgeWithModel: true });
    const sister = (await service.remember(claim("My sister Ana lives in Paris"))).memory;
    const outcome = await service.remember(claim("She moved to Rome"));
    expect(outcome).toMatchObject({ action: "created", queued: true });
    const pending = new JudgeQueue(database).pending(10);
    expect(pending.map((pair) => [pair.memoryId, pair.neighbourIds])).toEqual([
      [outcome.memory.id, [sister.id]],
    ]);
    expect(service.list({ userKey: "owner" })).toHaveLength(2);
  });

  it.each([
    ["My brother Tom lives in Paris", "She moved to Rome"],
    ["I live in Paris", "She moved to Rome"],
    ["My sisters live in Paris", "She moved to Rome"],
  ])("a model's 'update' of %j by %j is refused: the pronoun cannot point there", async (stored, said) => {
    const model = judgeSaying("update", stored);
    const { service } = makeHarness({ model, judgeWithModel: true });
    await service.remember(claim(stored));
    const outcome = await service.remember(claim(said));
    expect(outcome.action).not.toBe("superseded");
    expect(
      service
        .list({ userKey: "owner" })
        .map((memory) => memory.text)
        .sort(),
    ).toEqual([said, stored].sort());
  });

  it("a model's 'same' across the pronoun is refused", async () => {
    const model = judgeSaying("same", "Ana lives in Rome");
    const { service } = makeHarness({ model, judgeWithModel: true });
    await service.remember(claim("Ana lives in Rome"));
    const outcome = await service.remember(claim("She lives in Rome"));
    expect(outcome.action).not.toBe("confirmed");
  });
});
