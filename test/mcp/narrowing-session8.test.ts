import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/agent/clock.js";
import { McpManager } from "../../src/mcp/manager.js";
import { frameMcpData } from "../../src/mcp/result-frame.js";
import { ApprovalBroker } from "../../src/permissions/approvals.js";
import { AuditLog } from "../../src/permissions/audit.js";
import { createAuthorizer } from "../../src/permissions/authorizer.js";
import { createPermissionContext } from "../../src/permissions/context.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import type { AnyTool, ToolContext } from "../../src/tools/types.js";

const oddServer = {
  command: process.execPath,
  args: ["--import", import.meta.resolve("tsx"), join(import.meta.dirname, "odd-tools-server.ts")],
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The odd server behind the real permission engine; every approval is answered "always". */
async function setup() {
  const root = mkdtempSync(join(tmpdir(), "mercury-mcp-odd-"));
  const home = join(root, "home");
  const database = openMemoryDatabase();
  const warnings: string[] = [];
  let asked = 0;
  const broker = new ApprovalBroker({
    database,
    onEvent: (event) => {
      if (event.type !== "approval-request") return;
      asked += 1;
      queueMicrotask(() => broker.answer(event.approvalId, "always", "owner"));
    },
  });
  const manager = new McpManager(
    { servers: { odd: oddServer }, instructionsTokens: 1000 },
    {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      home,
      onEvent: (level, message) => {
        if (level === "warn") warnings.push(message);
      },
    },
  );
  cleanups.push(() => manager.close());
  await manager.ready();
  const authorize = createAuthorizer({
    context: createPermissionContext({
      cwd: root,
      home: root,
      mercuryHome: home,
      mode: "ask",
      sessionId: "s1",
      userKey: "owner",
      taskId: "t1",
    }),
    broker,
    audit: new AuditLog(database, systemClock),
  });
  const call = async (name: string) => {
    const tool = manager.tools().find((candidate) => candidate.name === name) as AnyTool;
    const context: ToolContext = {
      signal: new AbortController().signal,
      cwd: root,
      sessionId: "s1",
      taskId: "t1",
      userKey: "owner",
      home,
      authorize,
      reportActivity: () => undefined,
    };
    return tool.execute(tool.inputSchema.parse({}), context);
  };
  return { manager, warnings, call, asked: () => asked };
}

describe("MCP tool names a server chooses cannot widen a grant or swap a tool (session 8)", () => {
  it("leaves out a tool named * and both tools of a clashing pair, and says so", async () => {
    const { manager, warnings } = await setup();
    expect(manager.tools().map((tool) => tool.name)).toEqual(["mcp__odd__ok"]);
    expect(manager.tools()[0]?.description).toContain("A plain tool.[2Kok allowed");
    for (const character of ["\u001b", "\r", "\u202e"])
      expect(manager.tools()[0]?.description).not.toContain(character);
    expect(warnings.some((message) => message.includes('"*"') && message.includes("specification"))).toBe(
      true,
    );
    expect(warnings.filter((message) => message.includes("mcp__odd__read_file"))).toHaveLength(2);
  });

  it("an always-approval of one tool covers that tool only: the server's * subject is unreachable", async () => {
    const { call, asked } = await setup();
    expect(await call("mcp__odd__ok")).toEqual({ ok: true, output: frameMcpData("odd", "ok", "ok") });
    expect(asked()).toBe(1);
    // Answered "always": the second call runs without asking, by the tool's own grant.
    expect(await call("mcp__odd__ok")).toEqual({ ok: true, output: frameMcpData("odd", "ok", "ok") });
    expect(asked()).toBe(1);
  });
});
