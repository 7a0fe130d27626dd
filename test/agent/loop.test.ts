import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TranscriptStore } from "../../src/storage/transcripts.js";
import { createHarness } from "../helpers/agent-harness.js";
import { echoTool, touchTool } from "../helpers/echo-tool.js";

describe("agent loop", () => {
  it("answers in text and ends responded / text-stop", async () => {
    const harness = createHarness({ replies: [[{ text: "Hello there, friend." }]] });
    const report = await harness.run("hi");
    expect(report).toMatchObject({
      outcome: "responded",
      endCause: "text-stop",
      text: "Hello there, friend.",
    });
    const deltas = harness.events.filter((event) => event.type === "text-delta");
    expect(deltas.length).toBeGreaterThan(1);
    expect(harness.events.at(-1)?.type).toBe("task-end");
  });

  it("runs a tool call round trip and sends the result back to the model", async () => {
    const harness = createHarness({
      replies: [
        [{ toolCalls: [{ name: "echo", input: { text: "ping" } }] }, { text: "The tool said ping." }],
      ],
      tools: [echoTool],
    });
    const report = await harness.run("use the tool");
    expect(report.outcome).toBe("responded");
    const second = harness.models[0]?.requests[1];
    const toolMessage = second?.prompt.find((message) => message.role === "tool");
    expect(JSON.stringify(toolMessage)).toContain("echo: ping");
    const result = harness.events.find((event) => event.type === "tool-result");
    expect(result).toMatchObject({ ok: true, output: "echo: ping" });
  });

  it("returns tool failures, unknown tools and invalid input to the model as error results", async () => {
    const harness = createHarness({
      replies: [
        [
          {
            toolCalls: [
              { name: "echo", input: { text: "x", fail: true } },
              { name: "nope", input: {} },
              { name: "echo", input: { wrong: 1 } },
            ],
          },
          { text: "I could not do it." },
        ],
      ],
      tools: [echoTool],
    });
    const report = await harness.run("try");
    expect(report.outcome).toBe("responded");
    const results = harness.events.filter((event) => event.type === "tool-result");
    expect(results.map((event) => (event.type === "tool-result" ? event.ok : null))).toEqual([
      false,
      false,
      false,
    ]);
    const prompt = JSON.stringify(harness.models[0]?.requests[1]?.prompt);
    expect(prompt).toContain("echo refused: x");
    expect(prompt).toContain('unknown tool \\"nope\\"');
    expect(prompt).toContain("invalid input for echo");
  });

  it("pauses with steps-exhausted when the step budget runs out while tools are still called", async () => {
    const call = { toolCalls: [{ name: "echo", input: { text: "again" } }] };
    const harness = createHarness({
      replies: [[call, call, call]],
      tools: [echoTool],
      settings: { maxSteps: 3 },
    });
    const report = await harness.run("loop forever");
    expect(report).toMatchObject({ outcome: "paused", endCause: "steps-exhausted" });
    expect(report.reason).toContain("step budget");
  });

  // Issue 5 (evidence gate): a mutating call alone is no longer "completed"; the change must be real
  // (git/snapshot) and verified. A tool that only pretends to change something ends "responded".
  it("a mutating call that changed nothing ends responded, not completed", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "mercury-loop-"));
    const harness = createHarness({
      replies: [[{ toolCalls: [{ name: "touch", input: { name: "a.txt" } }] }, { text: "Done." }]],
      tools: [touchTool],
    });
    const report = await harness.run("change a file", { cwd });
    expect(report).toMatchObject({ outcome: "responded", filesChanged: [] });
  });

  it("continues a truncated answer, asks for sections, and reports the whole text", async () => {
    const harness = createHarness({
      replies: [[{ text: "first half", finishReason: "length" }, { text: "second half" }]],
    });
    const report = await harness.run("write a long essay");
    expect(report).toMatchObject({
      outcome: "responded",
      endCause: "text-stop",
      text: "first halfsecond half",
    });
    expect(JSON.stringify(harness.models[0]?.requests[1]?.prompt)).toContain("write it in smaller sections");
  });

  it("pauses as truncated when every continuation is cut off too", async () => {
    const cut = { text: "more", finishReason: "length" as const };
    const harness = createHarness({ replies: [[cut, cut, cut, cut]] });
    const report = await harness.run("never-ending");
    expect(report).toMatchObject({ outcome: "paused", endCause: "truncated" });
  });

  it("is cancelled when aborted, and stops a hanging provider", async () => {
    const harness = createHarness({ replies: [[{ hang: true }]] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user stop")), 50);
    const report = await harness.run("hang", { signal: controller.signal });
    expect(report).toMatchObject({ outcome: "cancelled", endCause: "aborted" });
  });

  it("takes a message sent while the task works into the running task (steering)", async () => {
    const harness = createHarness({
      replies: [
        [
          { toolCalls: [{ name: "echo", input: { text: "a" } }], chunkDelayMs: 20 },
          { text: "Noted, using blue." },
        ],
      ],
      tools: [echoTool],
    });
    const running = harness.run("paint it");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const sessionId = harness.events[0]?.sessionId ?? "";
    expect(harness.agent.steer(sessionId, "actually, use blue")).toBe(true);
    const report = await running;
    expect(report.text).toBe("Noted, using blue.");
    expect(JSON.stringify(harness.models[0]?.requests[1]?.prompt)).toContain("actually, use blue");
    expect(harness.agent.steer(sessionId, "too late")).toBe(false);
  });

  it("persists every message, tool calls and results included, so a new Agent continues the session", async () => {
    const first = createHarness({
      replies: [[{ toolCalls: [{ name: "echo", input: { text: "remember-me" } }] }, { text: "Stored." }]],
      tools: [echoTool],
    });
    const report = await first.run("step one");
    const roles = new TranscriptStore(first.database)
      .load(report.sessionId)
      .map((entry) => entry.message.role);
    expect(roles).toEqual(["user", "assistant", "tool", "assistant"]);
    const second = createHarness({
      database: first.database,
      replies: [[{ text: "I remember." }]],
      tools: [echoTool],
    });
    await second.run("what did the tool say?", { sessionId: report.sessionId });
    const prompt = JSON.stringify(second.models[0]?.requests[0]?.prompt);
    expect(prompt).toContain("remember-me");
    expect(prompt).toContain("echo: remember-me");
    expect(prompt).toContain("step one");
  });
});
