import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/agent/clock.js";
import type { AgentEvent } from "../../src/agent/events.js";
import type { McpServerConfig } from "../../src/config/mcp-schema.js";
import { McpManager } from "../../src/mcp/manager.js";
import { frameMcpData } from "../../src/mcp/result-frame.js";
import { ApprovalBroker } from "../../src/permissions/approvals.js";
import { AuditLog } from "../../src/permissions/audit.js";
import { createAuthorizer } from "../../src/permissions/authorizer.js";
import { createPermissionContext } from "../../src/permissions/context.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import type { AnyTool, ToolContext } from "../../src/tools/types.js";
import { startHttpMcpServer } from "../fakes/mcp-server.js";

const serverMain = join(import.meta.dirname, "../fakes/mcp-server.ts");
const tsx = import.meta.resolve("tsx");
const stdioServer = (extra: Partial<McpServerConfig> = {}): McpServerConfig => ({
  command: process.execPath,
  args: ["--import", tsx, serverMain],
  ...extra,
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Manager + the real permission engine; `answer` decides what the owner says to each approval. */
async function setup(
  servers: Record<string, McpServerConfig>,
  options: { answer?: "once" | "deny" | "always"; mode?: "ask" | "refuse"; env?: NodeJS.ProcessEnv } = {},
) {
  const root = mkdtempSync(join(tmpdir(), "mercury-mcp-"));
  const home = join(root, "home");
  const database = openMemoryDatabase();
  const approvalEvents: AgentEvent[] = [];
  const mcpEvents: { level: string; message: string }[] = [];
  const waiters: { match: RegExp; resolve: () => void }[] = [];
  const broker = new ApprovalBroker({
    database,
    onEvent: (event) => {
      approvalEvents.push(event);
      if (event.type === "approval-request" && options.answer) {
        const answer = options.answer;
        queueMicrotask(() => broker.answer(event.approvalId, answer, "owner"));
      }
    },
  });
  const manager = new McpManager(
    { servers, instructionsTokens: 1000 },
    {
      env: options.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      home,
      backoffMs: { initial: 50, max: 200 },
      onEvent: (level, message) => {
        mcpEvents.push({ level, message });
        for (const waiter of waiters.filter((w) => w.match.test(message))) waiter.resolve();
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
      mode: options.mode ?? "ask",
      sessionId: "s1",
      userKey: "owner",
      taskId: "t1",
    }),
    broker,
    audit: new AuditLog(database, systemClock),
  });
  const call = async (
    name: string,
    input: Record<string, unknown> = {},
    signal = new AbortController().signal,
  ) => {
    const tool = manager.tools().find((candidate) => candidate.name === name) as AnyTool;
    if (!tool)
      throw new Error(
        `no tool ${name}; have ${manager
          .tools()
          .map((t) => t.name)
          .join(", ")}`,
      );
    const context: ToolContext = {
      signal,
      cwd: root,
      sessionId: "s1",
      taskId: "t1",
      userKey: "owner",
      home,
      authorize,
      reportActivity: () => undefined,
    };
    return tool.execute(tool.inputSchema.parse(input), context);
  };
  const eventMatching = (match: RegExp) =>
    new Promise<void>((resolve) => {
      if (mcpEvents.some((event) => match.test(event.message))) resolve();
      else waiters.push({ match, resolve });
    });
  const asked = () => approvalEvents.filter((event) => event.type === "approval-request").length;
  return { manager, call, asked, mcpEvents, eventMatching, broker, home };
}

describe("MCP client against a real SDK server (stdio)", () => {
  it("lists the tools as mcp__<server>__<tool> with their schemas, and the server instructions", async () => {
    const { manager } = await setup({ fake: stdioServer({ tools: { exclude: ["hang"] } }) });
    const names = manager
      .tools()
      .map((tool) => tool.name)
      .sort();
    expect(names).toEqual([
      "mcp__fake__connect_to",
      "mcp__fake__crash",
      "mcp__fake__echo",
      "mcp__fake__fail",
      "mcp__fake__read_path",
      "mcp__fake__show_env",
      "mcp__fake__write_note",
      "mcp__fake__write_path",
    ]);
    const echo = manager.tools().find((tool) => tool.name === "mcp__fake__echo");
    expect(echo?.inputSchema.safeParse({ text: 1 }).success).toBe(false);
    expect(manager.instructionsSection()).toContain("use echo to repeat text");
    expect(manager.status()[0]).toMatchObject({ name: "fake", state: "ready", transport: "stdio" });
  });

  it("a call asks and, approved, runs; denied, it does not; the server's isError is a tool error", async () => {
    const approved = await setup({ fake: stdioServer() }, { answer: "once" });
    expect(await approved.call("mcp__fake__write_note", { note: "hi" })).toEqual({
      ok: true,
      output: frameMcpData("fake", "write_note", "written: hi"),
    });
    expect(approved.asked()).toBe(1);
    expect(await approved.call("mcp__fake__fail")).toMatchObject({
      ok: false,
      error: expect.stringContaining("failed on purpose"),
    });
    const denied = await setup({ fake: stdioServer() }, { answer: "deny" });
    const result = await denied.call("mcp__fake__write_note", { note: "hi" });
    expect(result).toMatchObject({
      ok: false,
      error: expect.stringContaining("owner denied this (mcp.call"),
    });
  });

  it("read-only tools run without asking only on a trusted server; other tools there still ask", async () => {
    const untrusted = await setup({ fake: stdioServer() }, { mode: "refuse" });
    expect(await untrusted.call("mcp__fake__echo", { text: "x" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("needs approval"),
    });
    const trusted = await setup({ fake: stdioServer({ trusted: true }) }, { mode: "refuse" });
    expect(await trusted.call("mcp__fake__echo", { text: "x" })).toEqual({
      ok: true,
      output: frameMcpData("fake", "echo", "echo: x"),
    });
    expect(trusted.asked()).toBe(0);
    expect(await trusted.call("mcp__fake__write_note", { note: "n" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("needs approval"),
    });
    const configured = await setup(
      { fake: stdioServer({ tools: { allow: ["write_note"] } }) },
      { mode: "refuse" },
    );
    expect(await configured.call("mcp__fake__write_note", { note: "n" })).toEqual({
      ok: true,
      output: frameMcpData("fake", "write_note", "written: n"),
    });
  });

  it("'always' is stored as a grant; a per-server grant covers every tool of that server", async () => {
    const first = await setup({ fake: stdioServer() }, { answer: "always" });
    await first.call("mcp__fake__write_note", { note: "a" });
    await first.call("mcp__fake__write_note", { note: "b" });
    expect(first.asked()).toBe(1);
    const server = await setup({ fake: stdioServer() }, { mode: "refuse" });
    server.broker.grants.add({
      userKey: "owner",
      sessionId: null,
      scope: "always",
      kind: "mcp",
      subject: "mcp:fake/*",
      createdBy: "owner",
    });
    expect(await server.call("mcp__fake__write_note", { note: "c" })).toEqual({
      ok: true,
      output: frameMcpData("fake", "write_note", "written: c"),
    });
  });

  it("a server that crashes is reported and restarted with backoff", async () => {
    const harness = await setup({ fake: stdioServer({ tools: { allow: ["crash", "echo"] } }) });
    const crashed = await harness.call("mcp__fake__crash");
    expect(crashed).toMatchObject({ ok: false, error: expect.stringContaining("[server-down]") });
    await harness.eventMatching(/fake restarted/);
    expect(harness.mcpEvents.map((event) => event.message).join("\n")).toContain(
      "stopped unexpectedly; restarting in",
    );
    const echo = harness.manager.tools().find((tool) => tool.name === "mcp__fake__echo");
    expect(echo).toBeDefined();
    expect(await harness.call("mcp__fake__echo", { text: "back" })).toEqual({
      ok: true,
      output: frameMcpData("fake", "echo", "echo: back"),
    });
    expect(harness.manager.status()[0]?.restarts).toBe(1);
  });

  it("a call that hangs ends with a timeout error, and an aborted task cancels the call", async () => {
    const harness = await setup({ fake: stdioServer({ timeoutMs: 300, tools: { allow: ["hang"] } }) });
    expect(await harness.call("mcp__fake__hang")).toMatchObject({
      ok: false,
      error: expect.stringContaining("[timeout]"),
    });
    const slow = await setup({ fake: stdioServer({ timeoutMs: 600_000, tools: { allow: ["hang"] } }) });
    const controller = new AbortController();
    const pending = slow.call("mcp__fake__hang", {}, controller.signal);
    controller.abort(new Error("stop"));
    expect(await pending).toMatchObject({ ok: false, error: expect.stringContaining("[cancelled]") });
  });

  it("a stdio server gets a filtered environment: no Mercury secrets unless named, HOME in $MERCURY_HOME/mcp/<name>", async () => {
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      OPENAI_API_KEY: "sk-secret",
      TELEGRAM_BOT_TOKEN: "123:abc",
      MY_SECRET: "given",
    };
    const harness = await setup(
      { fake: stdioServer({ trusted: true, env: { NAMED_SECRET: "${MY_SECRET}" } }) },
      { env },
    );
    const result = await harness.call("mcp__fake__show_env");
    expect(result.ok).toBe(true);
    const shown = JSON.parse(result.ok ? (result.output.split("\n")[1] ?? "{}") : "{}");
    expect(shown.names).not.toContain("OPENAI_API_KEY");
    expect(shown.names).not.toContain("TELEGRAM_BOT_TOKEN");
    expect(shown.names).not.toContain("MY_SECRET");
    expect(shown.named).toBe("given");
    expect(shown.home).toBe(join(harness.home, "mcp", "fake"));
    expect(shown.cwd).toBe(join(harness.home, "mcp", "fake"));
  });

  it("a server that does not start is reported; a secret it names but that is missing is a clear error", async () => {
    const harness = await setup({
      broken: { command: "/nonexistent/mcp-server" },
      missing: stdioServer({ env: { TOKEN: "${NOT_SET_ANYWHERE}" } }),
    });
    expect(harness.manager.tools()).toEqual([]);
    const messages = harness.mcpEvents.map((event) => event.message).join("\n");
    expect(messages).toContain("MCP server broken did not start");
    expect(messages).toContain("${NOT_SET_ANYWHERE}");
  });
});

describe("MCP client over streamable HTTP on loopback", () => {
  it("lists and calls, sending headers taken from secrets", async () => {
    const http = await startHttpMcpServer();
    cleanups.push(() => http.close());
    const harness = await setup(
      { web: { url: http.url, headers: { authorization: "Bearer ${MCP_TOKEN}" } } },
      { answer: "once", env: { MCP_TOKEN: "tok-123" } },
    );
    expect(harness.manager.tools().map((tool) => tool.name)).toContain("mcp__web__echo");
    expect(await harness.call("mcp__web__write_note", { note: "h" })).toEqual({
      ok: true,
      output: frameMcpData("web", "write_note", "written: h"),
    });
    expect(harness.asked()).toBe(1);
    expect(http.headers.some((headers) => headers.authorization === "Bearer tok-123")).toBe(true);
  });
});
