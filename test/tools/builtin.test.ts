import { describe, expect, it } from "vitest";
import { builtinTools } from "../../src/tools/builtin.js";
import { PlanStore } from "../../src/tools/plan-store.js";
import { fakeContext } from "./helpers.js";

describe("builtinTools", () => {
  it("lists every built-in tool once, with the agreed mutating flags", () => {
    const tools = builtinTools();
    expect(Object.fromEntries(tools.map((t) => [t.name, t.mutating]))).toEqual({
      read_file: false,
      write_file: true,
      edit_file: true,
      list_dir: false,
      search_files: false,
      delete_file: true,
      run_command: true,
      web_fetch: false,
      ask_user: false,
      update_plan: false,
    });
  });

  it("states output limits in every description that returns content", () => {
    const byName = new Map(builtinTools().map((t) => [t.name, t.description]));
    for (const name of ["read_file", "list_dir", "search_files", "run_command", "web_fetch"]) {
      expect(byName.get(name)).toMatch(/at most|limit|Limits/i);
    }
  });

  it("shares the plan store it is given", async () => {
    const store = new PlanStore();
    const plan = builtinTools({ planStore: store }).find((t) => t.name === "update_plan");
    await plan?.execute({ items: [{ text: "step", done: false }] }, fakeContext({ cwd: "/", home: "/" }));
    expect(store.openItems("task-test")).toEqual([{ text: "step", done: false }]);
  });
});
