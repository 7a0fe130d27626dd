import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolDefinition } from "../../../src/tools/types.js";
import { createHarness } from "../../helpers/agent-harness.js";
import { echoTool } from "../../helpers/echo-tool.js";
import { notices } from "./fixtures.js";

const echo = (text: string) => ({ toolCalls: [{ name: "echo", input: { text } }] });
const big = "B".repeat(20_000);
/** A read-only tool with a small input and a 20 KB result, like read_file on a big file. */
const dumpTool: ToolDefinition<Record<string, never>> = {
  name: "dump",
  description: "Returns a big blob.",
  inputSchema: z.object({}),
  mutating: false,
  async execute() {
    return { ok: true, output: `START${big}END` };
  },
};

describe("memory governor", () => {
  it("heap pressure compacts old tool results (head + tail + marker) in what is sent, keeps the database full, and continues", async () => {
    let checks = 0;
    const heap = { limitBytes: 100, sustainedChecks: 3, heapUsed: () => (++checks === 6 ? 200 : 50) };
    const harness = createHarness({
      tools: [echoTool, dumpTool],
      settings: { heap },
      replies: [
        [
          { toolCalls: [{ name: "dump", input: {} }] },
          echo("1"),
          echo("2"),
          echo("3"),
          echo("4"),
          { text: "All echoed." },
        ],
      ],
    });
    const report = await harness.run("echo a lot");
    expect(report).toMatchObject({ outcome: "responded", text: "All echoed." });
    const fifth = JSON.stringify(harness.models[0]?.requests[4]?.prompt);
    const sixth = JSON.stringify(harness.models[0]?.requests[5]?.prompt);
    expect(fifth).toContain(big);
    expect(sixth).not.toContain(big);
    expect(sixth).toContain("omitted to save memory");
    expect(sixth).toContain("STARTBBB");
    expect(sixth).toContain("BBBEND");
    expect(notices(harness.events).join("\n")).toContain("memory pressure");
    const stored = JSON.stringify(harness.agent.transcriptStore.load(report.sessionId));
    expect(stored).toContain(big);
  });

  it("sustained pressure (still over after compacting) pauses with the numbers", async () => {
    const heap = { limitBytes: 100 * 1024 * 1024, sustainedChecks: 3, heapUsed: () => 300 * 1024 * 1024 };
    const harness = createHarness({
      tools: [echoTool],
      settings: { heap },
      replies: [[echo("a"), echo("b")]],
    });
    const report = await harness.run("work");
    expect(report).toMatchObject({ outcome: "paused", endCause: "aborted" });
    expect(report.reason).toContain("memory pressure stayed above 100 MB (heap 300 MB)");
    expect(harness.models[0]?.requests).toHaveLength(2);
  });
});

describe("context governor", () => {
  const long = (tag: string) => `${tag}-${"x".repeat(2000)}`;

  it("near the context window, older turns are summarized by the model; tool pairs stay intact and the database keeps everything", async () => {
    const harness = createHarness({
      tools: [echoTool],
      settings: { contextWindow: 3000, historyReserveTokens: 1000 },
      replies: [
        [
          echo(long("ID-ALPHA")),
          echo(long("ID-BETA")),
          { text: "Summary: the user asked to echo two blobs; ID-ALPHA was echoed." },
          { text: "Both echoed." },
        ],
      ],
    });
    const report = await harness.run("echo two blobs");
    expect(report).toMatchObject({ outcome: "responded", text: "Both echoed." });
    const requests = harness.models[0]?.requests ?? [];
    expect(requests).toHaveLength(4);
    expect(JSON.stringify(requests[2]?.prompt)).toContain("Preserve exactly: every identifier");
    expect(JSON.stringify(requests[2]?.prompt)).toContain("ID-ALPHA");
    expect(requests[2]?.tools ?? []).toEqual([]);
    const after = JSON.stringify(requests[3]?.prompt);
    expect(after).toContain("[Summary by Mercury of 3 earlier messages");
    expect(after).not.toContain("call_1_0");
    // The kept exchange has both its call and its result.
    expect(after.match(/call_2_0/g)?.length).toBe(2);
    const stored = JSON.stringify(harness.agent.transcriptStore.load(report.sessionId));
    expect(stored).toContain("call_1_0");
    expect(stored).toContain("ID-ALPHA-xxx");
    expect(notices(harness.events).join("\n")).toContain("summarized 3 older message(s)");
  });

  it("a failed summary is reported and the task goes on with the newest turns", async () => {
    const harness = createHarness({
      tools: [echoTool],
      attempts: 1,
      settings: { contextWindow: 3000, historyReserveTokens: 1000 },
      replies: [
        [
          echo(long("A")),
          echo(long("B")),
          { error: { status: 500, message: "summarizer down" } },
          { text: "Done." },
        ],
      ],
    });
    const report = await harness.run("echo");
    expect(report).toMatchObject({ outcome: "responded", text: "Done." });
    expect(notices(harness.events).join("\n")).toContain("could not summarize older turns");
    expect(notices(harness.events).join("\n")).toContain("summarizer down");
  });
});
