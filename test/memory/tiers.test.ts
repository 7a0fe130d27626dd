import { describe, expect, it } from "vitest";
import { tierFor } from "../../src/memory/tiers.js";
import { makeHarness } from "./store/harness.js";

function tiers(database: ReturnType<typeof makeHarness>["database"]) {
  return database.prepare("SELECT id, tier FROM memories ORDER BY id").all();
}

describe("tiers", () => {
  it("ages a never-used memory from its creation: active -> dormant -> archived", async () => {
    const { service, clock } = makeHarness();
    const created = await service.remember({
      userKey: "owner",
      text: "I once tried kombucha",
      kind: "event",
      importance: "normal",
      evidence: "inferred",
    });
    const tierOf = () => service.show(created.memory.id, "owner").tier;
    clock.advanceDays(29);
    service.runDecay();
    expect(tierOf()).toBe("active");
    clock.advanceDays(2);
    expect(service.runDecay().moved).toEqual([{ id: created.memory.id, from: "active", to: "dormant" }]);
    expect(tierOf()).toBe("dormant");
    clock.advanceDays(150);
    service.runDecay();
    expect(tierOf()).toBe("archived");
    // Still there and still findable, just lower.
    const found = await service.search({ userKey: "owner", query: "kombucha" });
    expect(found[0]?.memory).toMatchObject({ id: created.memory.id, tier: "archived" });
  });

  it("is idempotent and never deletes", async () => {
    const { service, database, clock } = makeHarness();
    for (let index = 0; index < 20; index += 1) {
      await service.remember({
        userKey: "owner",
        text: `Distinct fact number ${index} about topic${index}`,
        kind: "fact",
        importance: (["low", "normal", "high", "critical"] as const)[index % 4] ?? "normal",
        evidence: "user-stated",
      });
      clock.advanceDays(13);
    }
    const now = clock.now();
    const once = service.runDecay(now);
    const afterOnce = tiers(database);
    const twice = service.runDecay(now);
    expect(twice.moved).toEqual([]);
    expect(tiers(database)).toEqual(afterOnce);
    expect(once.examined).toBe(20);
    expect(new Set(afterOnce.map((row) => (row as { tier: string }).tier))).toEqual(
      new Set(["active", "dormant", "archived"]),
    );
    clock.advanceDays(10_000);
    service.runDecay();
    expect(tiers(database)).toHaveLength(20);
  });

  it("recall brings a dormant memory back to active; confirmations reset the clock", async () => {
    const { service, clock } = makeHarness();
    const m = await service.remember({
      userKey: "owner",
      text: "My bike is a green Brompton",
      kind: "fact",
      importance: "normal",
      evidence: "user-stated",
    });
    clock.advanceDays(60);
    service.runDecay();
    expect(service.show(m.memory.id, "owner").tier).toBe("dormant");
    const recalled = await service.recall({ userKey: "owner", query: "brompton bike", tokenBudget: 400 });
    expect(recalled.memoryIds).toEqual([m.memory.id]);
    expect(service.show(m.memory.id, "owner").tier).toBe("active");
    clock.advanceDays(20);
    service.runDecay();
    expect(service.show(m.memory.id, "owner").tier).toBe("active");
  });

  it("lets important memories fade slower", () => {
    const base = { createdAt: "2026-01-01T00:00:00Z", lastUsedAt: null, lastConfirmedAt: null };
    const at = new Date("2026-03-15T00:00:00Z");
    expect(tierFor({ ...base, importance: "low" }, at)).toBe("dormant");
    expect(tierFor({ ...base, importance: "critical" }, at)).toBe("active");
  });
});
