import { describe, expect, it } from "vitest";
import { believedAt, parseAsOf } from "../../../src/memory/store/provenance.js";
import { makeHarness, ScriptedModel } from "./harness.js";

describe("--as-of dates", () => {
  it.each([
    ["2026-03-01", "2026-03-01T23:59:59.999Z"],
    ["2026-03-01T12:00:00Z", "2026-03-01T12:00:00.000Z"],
    ["2026-03-01T12:00:00+02:00", "2026-03-01T10:00:00.000Z"],
    ["2028-02-29", "2028-02-29T23:59:59.999Z"],
  ])("%s is %s", (raw, iso) => {
    expect(parseAsOf(raw)).toBe(iso);
  });

  it.each([
    "2026-02-30",
    "2026-02-29",
    "2026-13-01",
    "2026-03-01junk",
    "2026-03-01T25:00",
    "March 3",
    "",
    "3/1/2026",
  ])("%s is refused with what to type", (raw) => {
    expect(() => parseAsOf(raw)).toThrow(/--as-of must be a date like 2026-03-01/);
  });
});

describe("what was believed at a date", () => {
  it("before an update the old value, after it the new one; a fact valid from later is not yet true", async () => {
    const model = new ScriptedModel((request) => ({
      ok: true,
      text: JSON.stringify({
        judgements: [...request.prompt.matchAll(/^\[(\d+)\]/gm)].map((match) => ({
          id: Number(match[1]),
          verdict: "update",
          reason: "moved",
        })),
      }),
    }));
    const { service, clock } = makeHarness({ model, judgeWithModel: true });
    const common = {
      userKey: "owner",
      kind: "fact" as const,
      importance: "normal" as const,
      evidence: "user-stated" as const,
    };
    await service.remember({ ...common, text: "I live in Paris" });
    const before = clock.now().toISOString();
    clock.advanceDays(10);
    const moved = await service.remember({ ...common, text: "I moved to Berlin" });
    expect(moved.action).toBe("superseded");
    clock.advanceDays(1);
    await service.remember({
      ...common,
      text: "I start a new job at Siemens",
      validFrom: "2026-06-01T00:00:00.000Z",
    });
    const all = service.list({ userKey: "owner", includeSuperseded: true });
    const believed = (at: string) =>
      all.filter((memory) => believedAt(memory, at)).map((memory) => memory.text);
    expect(believed(before)).toEqual(["I live in Paris"]);
    expect(believed(clock.now().toISOString())).toEqual(["I moved to Berlin"]);
    expect(believed("2026-06-02T00:00:00.000Z").sort()).toEqual([
      "I moved to Berlin",
      "I start a new job at Siemens",
    ]);
  });
});
