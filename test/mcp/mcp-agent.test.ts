import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpManager } from "../../src/mcp/manager.js";
import { skillMd, skillsAgent, writeFiles } from "../skills/helpers.js";

const serverMain = join(import.meta.dirname, "../fakes/mcp-server.ts");
const tsx = import.meta.resolve("tsx");
const managers: McpManager[] = [];
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.close();
});

function fakeManager(): McpManager {
  const manager = new McpManager(
    {
      servers: { fake: { command: process.execPath, args: ["--import", tsx, serverMain] } },
      instructionsTokens: 1000,
    },
    {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      home: mkdtempSync(join(tmpdir(), "mercury-mcp-agent-")),
    },
  );
  managers.push(manager);
  return manager;
}
const call = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });
const results = (harness: ReturnType<typeof skillsAgent>) =>
  harness.events.flatMap((event) => (event.type === "tool-result" ? [event] : []));

describe("MCP tools in a real task", () => {
  it("the model sees mcp__fake__* and the server instructions; a call asks the owner and runs when approved", async () => {
    const harness = skillsAgent({ replies: [], mode: "ask", mcp: fakeManager() });
    harness.bus.subscribe((event) => {
      if (event.type === "approval-request")
        queueMicrotask(() => harness.broker.answer(event.approvalId, "once", "owner"));
    });
    harness.model.push(call("mcp__fake__write_note", { note: "from the agent" }));
    harness.model.push({ text: "Noted." });
    await harness.run("write a note");
    expect(JSON.stringify(harness.model.requests[0]?.tools)).toContain("mcp__fake__write_note");
    expect(harness.model.requests[0]?.prompt[0]?.content).toContain("use echo to repeat text");
    expect(results(harness)[0]).toMatchObject({ ok: true });
    expect(JSON.stringify(harness.model.requests[1]?.prompt)).toContain("written: from the agent");
  });

  it("allow-all (run --yes) does not cover an MCP call, and a skill's allowed-tools keeps MCP tools out", async () => {
    const yes = skillsAgent({ replies: [], mode: "refuse", allowAll: true, mcp: fakeManager() });
    yes.model.push(call("mcp__fake__write_note", { note: "x" }));
    yes.model.push({ text: "Could not." });
    await yes.run("note");
    expect(JSON.stringify(results(yes)[0])).toContain("needs a person's approval");

    const narrowed = skillsAgent({ replies: [], mode: "ask", mcp: fakeManager() });
    writeFiles(join(narrowed.home, "skills"), {
      "reader/SKILL.md": skillMd("reader", "Reads.", "allowed-tools: read_file\n"),
    });
    narrowed.model.push(call("activate_skill", { name: "reader" }));
    narrowed.model.push(call("mcp__fake__write_note", { note: "x" }));
    narrowed.model.push({ text: "ok" });
    await narrowed.run("go");
    expect(JSON.stringify(results(narrowed)[1])).toContain(
      "not available while the skill(s) reader are active",
    );
  });
});
