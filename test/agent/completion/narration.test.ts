import { describe, expect, it } from "vitest";
import { PlanStore } from "../../../src/tools/plan-store.js";
import { createUpdatePlanTool } from "../../../src/tools/update-plan.js";
import { createHarness } from "../../helpers/agent-harness.js";
import { echoTool, touchTool } from "../../helpers/echo-tool.js";
import { makeProject, notices, packageJson, passScript, realTools } from "./fixtures.js";

const plan = (items: [string, boolean][]) => ({
  toolCalls: [{ name: "update_plan", input: { items: items.map(([text, done]) => ({ text, done })) } }],
});
const guardNotices = (events: Parameters<typeof notices>[0]) =>
  notices(events).filter((n) => n.includes("guard round"));

describe("narration guard", () => {
  it("open plan + narration → grounding (the agent lists the workspace) → the model acts → completed", async () => {
    const cwd = makeProject({ "package.json": packageJson(passScript), "a.txt": "a\n" }, { git: true });
    const harness = createHarness({
      tools: realTools(),
      replies: [
        [
          plan([["write b.txt", false]]),
          { text: "I'll now write b.txt with the content." },
          { toolCalls: [{ name: "write_file", input: { path: "b.txt", content: "b\n" } }] },
          plan([["write b.txt", true]]),
          { text: "b.txt is written." },
        ],
      ],
    });
    const report = await harness.run("create b.txt", { cwd });
    expect(report).toMatchObject({
      outcome: "completed",
      filesChanged: [{ path: "b.txt", added: 1, removed: 0 }],
    });
    const grounding = JSON.stringify(harness.models[0]?.requests[2]?.prompt);
    expect(grounding).toContain("the plan still has 1 open item");
    expect(grounding).toContain("a.txt"); // the real listing of the workspace
    expect(grounding).toContain("package.json");
    expect(guardNotices(harness.events)).toHaveLength(1);
  });

  it("escalates grounding → forced mutating-only step → next provider → wake-up, then pauses naming the failed tool verbatim", async () => {
    const narrate = { text: "I will now touch the file." };
    const harness = createHarness({
      tools: [touchTool, echoTool, createUpdatePlanTool(new PlanStore())],
      settings: { maxSteps: 30 },
      replies: [
        [
          plan([["touch the file", false]]),
          { toolCalls: [{ name: "echo", input: { text: "disk is read-only", fail: true } }] },
          ...Array.from({ length: 9 }, () => narrate),
        ],
        [narrate, narrate],
      ],
    });
    const report = await harness.run("touch it");
    expect(report).toMatchObject({ outcome: "paused", endCause: "text-stop" });
    expect(report.reason).toContain(
      "Blocker: the last failed tool call was echo: echo refused: disk is read-only",
    );
    const p0 = harness.models[0]?.requests ?? [];
    const p1 = harness.models[1]?.requests ?? [];
    expect(p0.length + p1.length).toBe(13);
    expect(p1).toHaveLength(2);
    // Round 2 is the forced step: tool choice required, mutating tools only.
    const forced = p0[4];
    expect(forced?.toolChoice).toEqual({ type: "required" });
    expect(forced?.tools?.map((tool) => tool.name)).toEqual(["touch"]);
    expect(JSON.stringify(p0.at(-1)?.prompt)).toContain("Wake up");
    expect(guardNotices(harness.events)).toHaveLength(10);
    expect(guardNotices(harness.events).map((n) => n.split(": ").at(-1))).toEqual([
      "grounding",
      "forced",
      "rotate",
      "wake-up",
      "grounding",
      "forced",
      "rotate",
      "wake-up",
      "grounding",
      "forced",
    ]);
  });

  it("with one provider the rotation rung becomes a wake-up", async () => {
    const narrate = { text: "Let me do it now." };
    const harness = createHarness({
      tools: [touchTool, createUpdatePlanTool(new PlanStore())],
      replies: [
        [
          plan([["x", false]]),
          narrate,
          narrate,
          narrate,
          narrate,
          plan([["x", true]]),
          { text: "Done with x." },
        ],
      ],
    });
    const report = await harness.run("do x");
    expect(report.outcome).toBe("responded");
    expect(guardNotices(harness.events).map((n) => n.split(": ").at(-1))).toEqual([
      "grounding",
      "forced",
      "wake-up",
      "wake-up",
    ]);
  });

  it('"make me a workout plan" → no escalation, responded, one request', async () => {
    const harness = createHarness({
      tools: realTools(),
      replies: [
        [
          {
            text: "Here is your plan:\n1. Monday: squats\n2. Wednesday: I'll have you run 5 km\nLet me know how it goes!",
          },
        ],
      ],
    });
    const report = await harness.run("make me a workout plan");
    expect(report).toMatchObject({
      outcome: "responded",
      endCause: "text-stop",
      filesChanged: [],
      verification: [],
    });
    expect(harness.models[0]?.requests).toHaveLength(1);
    expect(notices(harness.events)).toEqual([]);
  });

  it('"what do you think of X?" → no escalation, responded', async () => {
    const harness = createHarness({
      tools: realTools(),
      replies: [[{ text: "I think X is promising; next I would try it on a small project." }]],
    });
    const report = await harness.run("what do you think of X?");
    expect(report.outcome).toBe("responded");
    expect(harness.models[0]?.requests).toHaveLength(1);
    expect(guardNotices(harness.events)).toEqual([]);
  });

  it("a failed tool explained honestly (no announced action) is an answer, not narration", async () => {
    const harness = createHarness({
      tools: [echoTool],
      replies: [
        [
          { toolCalls: [{ name: "echo", input: { text: "nope", fail: true } }] },
          { text: "The echo tool refused: nope." },
        ],
      ],
    });
    const report = await harness.run("echo nope");
    expect(report.outcome).toBe("responded");
    expect(guardNotices(harness.events)).toEqual([]);
  });

  it("a failed tool followed by an announced retry without a call is guarded, and progress ends it", async () => {
    const harness = createHarness({
      tools: [echoTool, touchTool],
      replies: [
        [
          { toolCalls: [{ name: "echo", input: { text: "first", fail: true } }] },
          { text: "I'll try another way." },
          { toolCalls: [{ name: "touch", input: { name: "f" } }] },
          { text: "Touched f instead." },
        ],
      ],
    });
    const report = await harness.run("try it", { cwd: makeProject({}) });
    expect(report.outcome).toBe("responded");
    expect(guardNotices(harness.events)).toHaveLength(1);
    expect(JSON.stringify(harness.models[0]?.requests[2]?.prompt)).toContain(
      "announces a next action after echo failed",
    );
  });

  it("a finished plan never triggers the guard", async () => {
    const harness = createHarness({
      tools: [createUpdatePlanTool(new PlanStore())],
      replies: [
        [
          plan([
            ["a", true],
            ["b", true],
          ]),
          { text: "Both done." },
        ],
      ],
    });
    const report = await harness.run("do a and b");
    expect(report.outcome).toBe("responded");
    expect(guardNotices(harness.events)).toEqual([]);
  });
});
