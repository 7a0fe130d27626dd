import { describe, expect, it } from "vitest";
import {
  exportJsonl,
  exportMarkdown,
  ImportError,
  importRecords,
  parseJsonl,
  parseMarkdown,
} from "../../src/memory/export-import.js";
import type { MemoryService } from "../../src/memory/service.js";
import { makeHarness, verdictJudge } from "./store/harness.js";

async function populate(service: MemoryService, clock: ReturnType<typeof makeHarness>["clock"]) {
  await service.remember({
    userKey: "owner",
    text: "My favorite color is blue",
    kind: "preference",
    importance: "normal",
    evidence: "user-stated",
    sessionId: "s1",
    messageIds: [3, 4],
    quote: "favorite color is blue",
  });
  clock.advanceDays(2);
  await service.remember({
    userKey: "owner",
    text: "My favorite color is green -- really",
    kind: "preference",
    importance: "high",
    evidence: "user-stated",
    validFrom: "2026-01-03",
  });
  await service.remember({
    userKey: "owner",
    text: "I live in Porto",
    kind: "fact",
    importance: "normal",
    evidence: "inferred",
  });
  await service.remember({
    userKey: "owner",
    text: "I live in Porto",
    kind: "fact",
    importance: "normal",
    evidence: "user-stated",
  });
  await service.remember({
    userKey: "owner",
    text: "The user does not drink coffee",
    kind: "preference",
    importance: "normal",
    evidence: "inferred",
  });
  await service.remember({
    userKey: "owner",
    text: "The user drinks coffee",
    kind: "preference",
    importance: "normal",
    evidence: "inferred",
  });
  await service.remember({
    userKey: "telegram:5",
    text: "I speak Portuguese and English\nfluently",
    kind: "fact",
    importance: "low",
    evidence: "user-stated",
  });
  clock.advanceDays(40);
  await service.recall({ userKey: "owner", query: "Porto", tokenBudget: 300 });
  service.runDecay();
}

/** Everything about each memory except its id, with links expressed through texts. */
function snapshot(service: MemoryService) {
  return ["owner", "telegram:5"].flatMap((userKey) =>
    service.memories.list({ userKey, includeSuperseded: true }).map((memory) => {
      const { id: _id, supersededBy, ...rest } = memory;
      return {
        ...rest,
        supersededBy: supersededBy === null ? null : service.memories.get(supersededBy)?.text,
        versions: service.memories.versions(memory.id).map(({ id: _v, memoryId: _m, ...version }) => version),
      };
    }),
  );
}

function conflictTexts(service: MemoryService) {
  return service.conflicts("owner").map((conflict) => [conflict.a.text, conflict.b.text, conflict.reason]);
}

/** The judge a configured model would be: the colour changed, the coffee claims contradict. */
function populateJudge() {
  return verdictJudge((said, stored) => {
    if (said === stored) return "same";
    if (said.includes("favorite color") && stored.includes("favorite color")) return "update";
    if (said.includes("coffee") && stored.includes("coffee")) return "contradiction";
    return "different";
  });
}

describe("export and import", () => {
  it("JSONL round trip loses nothing: versions, provenance, counts, tiers, supersession, conflicts", async () => {
    const source = makeHarness({ model: populateJudge(), judgeWithModel: true });
    await populate(source.service, source.clock);
    const exported = exportJsonl(source.service, ["owner", "telegram:5"], source.clock.now());
    expect(exported.count).toBe(6);
    const target = makeHarness();
    const result = importRecords(target.service, parseJsonl(exported.content));
    expect(result).toEqual({ imported: 6, skipped: 0, conflicts: 1 });
    expect(snapshot(target.service)).toEqual(snapshot(source.service));
    expect(conflictTexts(target.service)).toEqual(conflictTexts(source.service));
    // Imported memories are searchable, and importing again changes nothing.
    expect((await target.service.search({ userKey: "owner", query: "porto" }))[0]?.memory.text).toBe(
      "I live in Porto",
    );
    expect(importRecords(target.service, parseJsonl(exported.content))).toMatchObject({
      imported: 0,
      skipped: 6,
    });
    expect(snapshot(target.service)).toEqual(snapshot(source.service));
  });

  it("Markdown round trip loses nothing either, and a text edited in the file becomes a manual edit", async () => {
    const source = makeHarness({ model: populateJudge(), judgeWithModel: true });
    await populate(source.service, source.clock);
    const markdown = exportMarkdown(source.service, ["owner", "telegram:5"], source.clock.now()).content;
    expect(markdown).toContain("## telegram:5");
    expect(markdown).toContain("- [fact] I live in Porto — user-stated, confirmed 1×, normal, active");
    const target = makeHarness();
    importRecords(target.service, parseMarkdown(markdown, "owner", target.clock.now()));
    expect(snapshot(target.service)).toEqual(snapshot(source.service));
    expect(conflictTexts(target.service)).toEqual(conflictTexts(source.service));

    const edited = markdown.replace("- [fact] I live in Porto —", "- [fact] I live in Braga —");
    const third = makeHarness();
    importRecords(third.service, parseMarkdown(edited, "owner", third.clock.now()));
    const braga = third.service
      .list({ userKey: "owner" })
      .find((memory) => memory.text === "I live in Braga");
    expect(braga?.evidence).toBe("manual");
    expect(third.service.history(braga?.id ?? 0, "owner").at(-1)).toMatchObject({
      reason: "edited",
      text: "I live in Braga",
    });
  });

  it("imports hand-written Markdown bullets as imported evidence under their heading's person", () => {
    const { service, clock } = makeHarness();
    const result = importRecords(
      service,
      parseMarkdown(
        "# Notes\n\n## Food\n\n- [preference] Likes green tea — sencha mostly\n- Has a dog named Rex\n\n## telegram:7\n\n* Plays chess",
        "owner",
        clock.now(),
      ),
    );
    expect(result.imported).toBe(3);
    expect(
      service.list({ userKey: "owner" }).map((memory) => [memory.kind, memory.text, memory.evidence]),
    ).toEqual([
      ["preference", "Likes green tea — sencha mostly", "imported"],
      ["fact", "Has a dog named Rex", "imported"],
    ]);
    expect(service.list({ userKey: "telegram:7" }).map((memory) => memory.text)).toEqual(["Plays chess"]);
  });

  it("rejects a bad file with the line and the problem, importing nothing", () => {
    const { service } = makeHarness();
    expect(() => parseJsonl('{"type":"memory","id":1}\n')).toThrow(ImportError);
    expect(() => parseJsonl("not json\n")).toThrow(/line 1: not valid JSON/);
    expect(() => parseJsonl('{"type":"memo"}')).toThrow(/unknown record type "memo"/);
    expect(() => parseMarkdown("- [wish] Go to Mars", "owner", new Date())).toThrow(
      /line 1: unknown memory kind "wish"/,
    );
    expect(() =>
      importRecords(service, [
        { type: "conflict", userKey: "owner", a: 1, b: 2, reason: "x", detectedAt: "2026-01-01" },
      ]),
    ).toThrow(/names a memory not in the file/);
    expect(service.list({ userKey: "owner" })).toEqual([]);
  });
});
