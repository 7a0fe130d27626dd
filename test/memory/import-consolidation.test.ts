import { describe, expect, it } from "vitest";
import {
  exportJsonl,
  importAndConsolidate,
  parseJsonl,
  parseMarkdown,
} from "../../src/memory/export-import.js";
import type { MemoryService } from "../../src/memory/service.js";
import type { EvidenceKind } from "../../src/memory/store/types.js";
import { makeHarness, verdictJudge } from "./store/harness.js";

async function say(service: MemoryService, text: string, evidence: EvidenceKind = "user-stated") {
  return await service.remember({ userKey: "owner", text, kind: "fact", importance: "normal", evidence });
}

/** A JSONL export from another store holding exactly these statements. */
async function exportOf(...texts: string[]) {
  const source = makeHarness();
  for (const text of texts) await say(source.service, text);
  return parseJsonl(exportJsonl(source.service, ["owner"], source.clock.now()).content);
}

function current(service: MemoryService) {
  return service.list({ userKey: "owner" }).map((memory) => memory.text);
}

describe("import consolidates against what was already stored", () => {
  it("a rewording of a stored fact becomes a confirmation, not a second current memory", async () => {
    const { service } = makeHarness();
    const stored = (await say(service, "I live in Porto")).memory;
    const result = await importAndConsolidate(service, await exportOf("The user lives in Porto"));
    expect(result).toMatchObject({ imported: 1, skipped: 0, conflicts: 0 });
    expect(result.consolidation).toEqual({
      confirmed: 1,
      superseded: 0,
      keptExisting: 0,
      conflicts: 0,
      queued: 0,
    });
    // One current memory: the stored one, confirmed (its wording follows the confirmation rules).
    expect(service.list({ userKey: "owner" }).map((memory) => memory.id)).toEqual([stored.id]);
    const kept = service.memories.require(stored.id);
    expect(kept.confirmations).toBe(1);
    expect(service.memories.versions(stored.id).at(-1)).toMatchObject({
      reason: "confirmed",
      text: "The user lives in Porto",
    });
    // The imported copy keeps its history, no longer current, pointing at the memory it confirmed.
    const copy = service.memories
      .list({ userKey: "owner", includeSuperseded: true })
      .find((memory) => memory.id !== stored.id);
    expect(copy?.supersededBy).toBe(stored.id);
    // Both wordings stay findable through the kept memory.
    expect((await service.search({ userKey: "owner", query: "lives Porto" }))[0]?.memory.id).toBe(stored.id);
  });

  it("a contradiction becomes a listed conflict with both kept", async () => {
    const { service } = makeHarness();
    await say(service, "I am allergic to peanuts");
    const result = await importAndConsolidate(service, await exportOf("I am not allergic to peanuts"));
    expect(result.consolidation.conflicts).toBe(1);
    expect(current(service).sort()).toEqual(["I am allergic to peanuts", "I am not allergic to peanuts"]);
    expect(service.conflicts("owner").map((conflict) => [conflict.a.text, conflict.b.text].sort())).toEqual([
      ["I am allergic to peanuts", "I am not allergic to peanuts"],
    ]);
  });

  it("a different fact about another person is kept separately, untouched", async () => {
    const { service } = makeHarness();
    const stored = (await say(service, "My sister lives in Paris")).memory;
    const result = await importAndConsolidate(service, await exportOf("My brother lives in Paris"));
    expect(result.consolidation).toEqual({
      confirmed: 0,
      superseded: 0,
      keptExisting: 0,
      conflicts: 0,
      queued: 0,
    });
    expect(current(service).sort()).toEqual(["My brother lives in Paris", "My sister lives in Paris"]);
    expect(service.memories.require(stored.id).confirmations).toBe(0);
  });

  it("a hand-written Markdown bullet repeating a stored fact confirms it", async () => {
    const { service, clock } = makeHarness();
    await say(service, "The user's favourite colour is blue");
    const result = await importAndConsolidate(
      service,
      parseMarkdown("- User's favourite colour is blue\n- Has a dog named Rex", "owner", clock.now()),
    );
    expect(result.consolidation.confirmed).toBe(1);
    expect(current(service).sort()).toEqual(["Has a dog named Rex", "The user's favourite colour is blue"]);
  });

  it("with a model judge configured, its update verdict supersedes the stored memory", async () => {
    const judge = verdictJudge((said, stored) =>
      said.includes("Berlin") && stored.includes("Paris") ? "update" : "different",
    );
    const { service, clock } = makeHarness({ model: judge, judgeWithModel: true });
    const stored = (await say(service, "The user lives in Paris")).memory;
    clock.advanceDays(3);
    // Exported from a store where the move was said later than the stored Paris.
    const source = makeHarness();
    source.clock.advanceDays(5);
    await say(source.service, "The user moved to Berlin");
    const records = parseJsonl(exportJsonl(source.service, ["owner"], source.clock.now()).content);
    const result = await importAndConsolidate(service, records);
    expect(result.consolidation.superseded).toBe(1);
    expect(current(service)).toEqual(["The user moved to Berlin"]);
    expect(service.memories.require(stored.id).validTo).not.toBeNull();
  });

  it("importing the same file twice changes nothing the second time", async () => {
    const { service } = makeHarness();
    await say(service, "I live in Porto");
    const records = await exportOf("The user lives in Porto");
    await importAndConsolidate(service, records);
    const again = await importAndConsolidate(service, records);
    expect(again).toMatchObject({ imported: 0, skipped: 1 });
    expect(again.consolidation.confirmed).toBe(0);
    expect(current(service)).toHaveLength(1);
    expect(service.list({ userKey: "owner" })[0]?.confirmations).toBe(1);
  });
});
