import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createHarness } from "../../helpers/agent-harness.js";
import { echoTool, touchTool } from "../../helpers/echo-tool.js";
import { notices, realTools } from "./fixtures.js";

const scratch = () => mkdtempSync(join(tmpdir(), "mercury-scenario-"));
const touch = (name: string) => ({ toolCalls: [{ name: "touch", input: { name } }] });
const echo = { toolCalls: [{ name: "echo", input: { text: "again" } }] };

describe("turn-end causes from facts", () => {
  it("step budget exhausted without progress → paused (steps-exhausted), never completed", async () => {
    const harness = createHarness({ replies: [[echo, echo]], tools: [echoTool], settings: { maxSteps: 2 } });
    const report = await harness.run("loop");
    expect(report).toMatchObject({ outcome: "paused", endCause: "steps-exhausted" });
    expect(report.reason).toContain("no progress");
    expect(notices(harness.events).some((n) => n.includes("continuing"))).toBe(false);
  });

  it("stream cut before the finish chunk → retried, then failed with the cause (interrupted), never completed", async () => {
    const cut = { cutBeforeFinish: true as const, text: ["half an "] };
    const harness = createHarness({ replies: [[cut, cut, cut]] });
    const report = await harness.run("answer");
    expect(report).toMatchObject({ outcome: "failed", endCause: "interrupted" });
    expect(report.reason).toContain("p0");
    expect(harness.models[0]?.requests).toHaveLength(3);
    expect(report.text).not.toContain("half an");
  });

  it("a cut stream is handed to the next provider, which finishes the task", async () => {
    const cut = { cutBeforeFinish: true as const, text: ["par"] };
    const harness = createHarness({ replies: [[cut, cut, cut], [{ text: "Whole answer." }]] });
    const report = await harness.run("answer");
    expect(report).toMatchObject({ outcome: "responded", endCause: "text-stop", text: "Whole answer." });
  });

  it("length finish in the middle of a file write → continuation asking for sections", async () => {
    const harness = createHarness({
      tools: realTools(),
      replies: [
        [
          {
            toolCalls: [{ name: "write_file", rawArguments: '{"path":"big.txt","content":"aaaa' }],
            finishReason: "length",
          },
          { toolCalls: [{ name: "write_file", input: { path: "big.txt", content: "section 1\n" } }] },
          { text: "Wrote the first section; the rest needs another run." },
        ],
      ],
    });
    const cwd = scratch();
    const report = await harness.run("write a big file", { cwd });
    const second = JSON.stringify(harness.models[0]?.requests[1]?.prompt);
    expect(second).toContain("write it in smaller sections");
    // One result per call: the SDK's own error for the cut-off arguments, not a second one from us.
    expect(second.match(/"toolCallId":"call_1_0","toolName":"write_file","output"/g)).toHaveLength(1);
    expect(report.filesChanged).toEqual([{ path: "big.txt", added: 1, removed: 0 }]);
    // A scratch folder is no project: the change completes with "no checks to run here" (issue 13).
    expect(report.outcome).toBe("completed");
    expect(report.reason).toContain("no checks to run here");
  });

  it("a provider that rejects the output limit is retried with a smaller limit", async () => {
    const harness = createHarness({
      settings: { maxOutputTokens: 8000 },
      attempts: 1,
      replies: [
        [
          {
            error: {
              status: 400,
              message: "max_tokens is too large: 8000. This model supports at most 4096 completion tokens.",
            },
          },
          { text: "Short answer." },
        ],
      ],
    });
    const report = await harness.run("hi");
    expect(report).toMatchObject({ outcome: "responded", text: "Short answer." });
    expect(harness.models[0]?.requests.map((r) => r.maxOutputTokens)).toEqual([8000, 4000]);
    expect(notices(harness.events).join("\n")).toContain("retrying with 4000");
  });

  it("a 400 that is not about the output limit is not retried with a smaller limit", async () => {
    const harness = createHarness({
      attempts: 1,
      replies: [[{ error: { status: 400, message: "messages: invalid role" } }]],
    });
    const report = await harness.run("hi");
    expect(report).toMatchObject({ outcome: "failed" });
    expect(report.reason).toContain("invalid role");
    expect(harness.models[0]?.requests).toHaveLength(1);
  });
});

describe("auto-continue", () => {
  it("starts a fresh budget while progress is made and finishes the task", async () => {
    const harness = createHarness({
      tools: [touchTool],
      settings: { maxSteps: 2 },
      replies: [[touch("a"), touch("b"), touch("c"), { text: "All three touched." }]],
    });
    const report = await harness.run("touch three", { cwd: scratch() });
    expect(report).toMatchObject({ outcome: "responded", endCause: "text-stop" });
    expect(notices(harness.events).some((n) => n.includes("continuing (1/6)"))).toBe(true);
  });

  it("stops without progress: a budget spent on read-only calls after a continuation pauses", async () => {
    const harness = createHarness({
      tools: [touchTool, echoTool],
      settings: { maxSteps: 2 },
      replies: [[touch("a"), touch("b"), echo, echo]],
    });
    const report = await harness.run("work", { cwd: scratch() });
    expect(report).toMatchObject({ outcome: "paused", endCause: "steps-exhausted" });
    expect(report.reason).toContain("no progress since the last budget");
    expect(notices(harness.events).filter((n) => n.includes("continuing ("))).toHaveLength(1);
  });

  it("asks the user before the last continuation; 'stop' pauses", async () => {
    const questions: string[] = [];
    const steps = Array.from({ length: 6 }, (_, i) => touch(`f${i}`));
    const harness = createHarness({ tools: [touchTool], settings: { maxSteps: 1 }, replies: [steps] });
    const report = await harness.run("work", {
      cwd: scratch(),
      askUser: async (question) => {
        questions.push(question);
        return "stop";
      },
    });
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain("one last budget");
    expect(report).toMatchObject({ outcome: "paused", endCause: "steps-exhausted" });
    expect(report.reason).toContain('you answered "stop"');
    expect(harness.models[0]?.requests).toHaveLength(6);
  });

  it("without anyone to ask, the last continuation is not taken: paused", async () => {
    const steps = Array.from({ length: 6 }, (_, i) => touch(`f${i}`));
    const harness = createHarness({ tools: [touchTool], settings: { maxSteps: 1 }, replies: [steps] });
    const report = await harness.run("work", { cwd: scratch() });
    expect(report.outcome).toBe("paused");
    expect(report.reason).toContain("needs your OK");
  });

  it("with the user's OK takes the 6th continuation, and never a 7th", async () => {
    const steps = Array.from({ length: 8 }, (_, i) => touch(`f${i}`));
    const harness = createHarness({ tools: [touchTool], settings: { maxSteps: 1 }, replies: [steps] });
    const report = await harness.run("work", { cwd: scratch(), askUser: async () => "continue" });
    expect(report.outcome).toBe("paused");
    expect(report.reason).toContain("already continued 6 times");
    expect(harness.models[0]?.requests).toHaveLength(7);
  });
});
