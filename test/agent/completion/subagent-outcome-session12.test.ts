import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { delegateTaskTool } from "../../../src/agent/subagents/delegate.js";
import { SubagentRegistry } from "../../../src/agent/subagents/registry.js";
import { uncheckedDelegation } from "../../../src/agent/subagents/unchecked.js";
import { usageWithPrefix } from "../../../src/scheduler/usage.js";
import type { AnyTool } from "../../../src/tools/types.js";
import { allowEverything, createHarness } from "../../helpers/agent-harness.js";
import { makeProject, realTools } from "./fixtures.js";

/**
 * Session 12: a parent whose sub-agent's work did not finish. The parent's check covers the parent's
 * project, not what the child was asked to do (here a subproject the parent's check never runs), so
 * its pass is no evidence for that work: the parent answered "completed" over a failed child.
 */
describe("a parent is not completed over a sub-agent whose work did not finish", () => {
  it("the child failed mid-way (its provider failed after a write); the parent's passing check does not complete it", async () => {
    const cwd = makeProject({ "check.js": "console.log('1 passing')", "sub/feature.txt": "todo\n" });
    mkdirSync(join(cwd, "sub"), { recursive: true });
    const registry = new SubagentRegistry();
    const tools: AnyTool[] = [...realTools()];
    let harness: ReturnType<typeof createHarness> | null = null;
    const delegate = delegateTaskTool({
      agent: () => {
        if (!harness) throw new Error("agent not ready");
        return harness.agent;
      },
      tools: () => tools,
      registry,
      limits: { maxDepth: 1, maxChildrenPerParent: 2, maxConcurrent: 2 },
      clock: { now: () => new Date() },
      childAuthorizer: () => allowEverything,
      usageOf: (prefix) => usageWithPrefix((harness as NonNullable<typeof harness>).database, prefix),
    });
    tools.push(delegate);
    harness = createHarness({
      tools,
      attempts: 1,
      settings: { verifyCommand: "node check.js", maxSteps: 8 },
      replies: [
        [
          // The parent hands the feature to a child.
          { toolCalls: [{ name: "delegate_task", input: { task: "implement the feature", cwd: "sub" } }] },
          // The child writes half of it, then its provider fails for good.
          { toolCalls: [{ name: "write_file", input: { path: "feature.txt", content: "half done\n" } }] },
          { error: { status: 400, message: "invalid request: context too long" } },
          // The parent claims the child's work.
          { text: "Done: the helper implemented the feature and the checks pass." },
        ],
      ],
    });
    const report = await harness.run("implement the feature in sub/", { cwd, taskId: "parent-s12" });
    expect(readFileSync(join(cwd, "sub/feature.txt"), "utf8")).toBe("half done\n");
    expect(report.verification).toEqual([{ command: "node check.js", exitCode: 0 }]);
    expect(report.outcome).not.toBe("completed");
    expect(report.reason).toMatch(/a sub-agent did not finish its work \(failed/);
  });

  it("a child whose own check failed is a change no later check of the parent bears out", () => {
    const failedCheck = uncheckedDelegation(
      '[unverified] sub-agent failed, but its last verification `npm test` exited 1: {"outcome":"failed"}',
    );
    expect(failedCheck).toEqual({
      why: "a sub-agent's check did not pass or never ran (sub-agent failed, but its last verification `npm test` exited 1)",
      unfinished: true,
    });
    // A check that never ran (refused) is no failure: the parent's own passing check may stand for it.
    const neverRan = uncheckedDelegation(
      '[unverified] sub-agent responded, but the verification `npm test` was refused: {"outcome":"responded"}',
    );
    expect(neverRan?.unfinished).toBe(false);
    // A child that threw (its run could not even start) did not do its work either.
    expect(uncheckedDelegation("[unfinished] sub-agent failed: {}")?.unfinished).toBe(true);
  });
});
