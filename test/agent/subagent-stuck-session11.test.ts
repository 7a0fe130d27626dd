import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentControlTools, delegateTaskTool } from "../../src/agent/subagents/delegate.js";
import { SubagentRegistry } from "../../src/agent/subagents/registry.js";
import { subagentLabel, subagentView } from "../../src/channels/cli/subagent-events.js";
import { usageWithPrefix } from "../../src/scheduler/usage.js";
import type { AnyTool } from "../../src/tools/types.js";
import type { ScriptedReply } from "../fakes/script.js";
import { allowEverything, createHarness } from "../helpers/agent-harness.js";
import { echoTool } from "../helpers/echo-tool.js";

/** A parent that delegates once, with the child's replies scripted after the parent's first step. */
function delegating(
  childReplies: ScriptedReply[],
  settings: Parameters<typeof createHarness>[0]["settings"],
) {
  const registry = new SubagentRegistry();
  let agentRef: ReturnType<typeof createHarness>["agent"] | null = null;
  const delegate: AnyTool = delegateTaskTool({
    agent: () => {
      if (!agentRef) throw new Error("agent not ready");
      return agentRef;
    },
    tools: () => [echoTool, delegate, ...agentControlTools(registry)],
    registry,
    limits: { maxDepth: 1, maxChildrenPerParent: 2, maxConcurrent: 2 },
    clock: { now: () => new Date() },
    childAuthorizer: () => allowEverything,
    usageOf: (prefix) => usageWithPrefix(harness.database, prefix),
  });
  const harness = createHarness({
    replies: [
      [
        { toolCalls: [{ name: "delegate_task", input: { task: "count the files", tools: ["echo"] } }] },
        ...childReplies,
        { text: "The helper did not finish; I have no count." },
      ],
    ],
    tools: [echoTool, delegate],
    settings: settings ?? {},
  });
  agentRef = harness.agent;
  return harness;
}

function delegateResult(harness: ReturnType<typeof createHarness>) {
  const result = harness.events.find(
    (event) =>
      event.type === "tool-result" && event.taskId === "parent-1" && event.toolName === "delegate_task",
  );
  if (result?.type !== "tool-result") throw new Error("the parent never got the delegate_task result");
  return result;
}

describe("a sub-agent that hangs or runs out of steps (session 11)", () => {
  it("a hung child pauses at the stall limit; the parent is told, the terminal names the child, nothing is done", async () => {
    const harness = delegating([{ hang: true }], { stall: { softMs: 60_000, hardMs: 1500 } });
    const report = await harness.run("delegate it", {
      taskId: "parent-1",
      sessionId: "s-1",
      cwd: mkdtempSync(join(tmpdir(), "mercury-sub11-")),
    });
    const result = delegateResult(harness);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/sub-agent (paused|failed)/);
    const childEnd = harness.events.find(
      (event) => event.type === "task-end" && subagentLabel(event) !== null,
    );
    if (childEnd?.type !== "task-end") throw new Error("the child never ended");
    expect(childEnd.outcome).not.toMatch(/completed|responded/);
    const line = subagentView(childEnd, subagentLabel(childEnd) ?? "");
    expect(line).toMatchObject({ kind: "line" });
    expect(line.kind === "line" ? line.text : "").toMatch(/child-1 [⏸✗] sub-agent (paused|failed)/);
    expect(report.outcome).not.toBe("completed");
  });

  it("a child that uses up its steps is reported as unfinished to the parent, never done", async () => {
    const step: ScriptedReply = { toolCalls: [{ name: "echo", input: { text: "again" } }] };
    const harness = delegating([step, step, step], { maxSteps: 3 });
    const report = await harness.run("delegate it", {
      taskId: "parent-1",
      sessionId: "s-2",
      cwd: mkdtempSync(join(tmpdir(), "mercury-sub11-")),
    });
    const result = delegateResult(harness);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/sub-agent (paused|failed)/);
    const childEnd = harness.events.find(
      (event) => event.type === "task-end" && subagentLabel(event) !== null,
    );
    if (childEnd?.type !== "task-end") throw new Error("the child never ended");
    expect(childEnd.endCause).toBe("steps-exhausted");
    expect(report.outcome).not.toBe("completed");
  });
});
