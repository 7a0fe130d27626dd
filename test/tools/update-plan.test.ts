import { describe, expect, it } from "vitest";
import { PlanStore } from "../../src/tools/plan-store.js";
import { createUpdatePlanTool } from "../../src/tools/update-plan.js";
import { expectError, expectOk, fakeContext } from "./helpers.js";

const dirs = { cwd: "/", home: "/" };

describe("update_plan", () => {
  it("stores the checklist per task, reports open items, and notifies subscribers", async () => {
    const store = new PlanStore();
    const seen: [string, number][] = [];
    store.onChange((taskId, items) => seen.push([taskId, items.length]));
    const tool = createUpdatePlanTool(store);
    const output = expectOk(
      await tool.execute(
        {
          items: [
            { text: "read the code", done: true },
            { text: " write the fix ", done: false },
            { text: "run the tests", done: false },
          ],
        },
        fakeContext(dirs),
      ),
    );
    expect(output).toBe("Plan updated: 1 of 3 done. Open:\n- write the fix\n- run the tests");
    expect(store.openItems("task-test")).toEqual([
      { text: "write the fix", done: false },
      { text: "run the tests", done: false },
    ]);
    expect(store.openItems("another-task")).toEqual([]);
    expect(seen).toEqual([["task-test", 3]]);
  });

  it("replaces the plan on each call and says when nothing is open", async () => {
    const store = new PlanStore();
    const tool = createUpdatePlanTool(store);
    expectOk(await tool.execute({ items: [{ text: "a", done: false }] }, fakeContext(dirs)));
    const output = expectOk(await tool.execute({ items: [{ text: "a", done: true }] }, fakeContext(dirs)));
    expect(output).toBe("Plan updated: 1 of 1 done. No open items.");
    expect(store.get("task-test")).toEqual([{ text: "a", done: true }]);
    store.clear("task-test");
    expect(store.get("task-test")).toEqual([]);
  });

  it("refuses duplicate steps and keeps the previous plan", async () => {
    const store = new PlanStore();
    const tool = createUpdatePlanTool(store);
    expectOk(await tool.execute({ items: [{ text: "x", done: false }] }, fakeContext(dirs)));
    const error = expectError(
      await tool.execute(
        {
          items: [
            { text: "y", done: false },
            { text: "y ", done: true },
          ],
        },
        fakeContext(dirs),
      ),
    );
    expect(error).toMatch(/lists "y" twice/);
    expect(store.get("task-test")).toEqual([{ text: "x", done: false }]);
  });

  it("a copy is stored, so later mutation of the input cannot change it", () => {
    const store = new PlanStore();
    const items = [{ text: "a", done: false }];
    store.set("t", items);
    items[0] = { text: "changed", done: true };
    expect(store.get("t")).toEqual([{ text: "a", done: false }]);
  });
});
