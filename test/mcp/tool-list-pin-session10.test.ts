import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpManager } from "../../src/mcp/manager.js";
import { until } from "../helpers/processes.js";

const hostileServer = {
  command: process.execPath,
  args: ["--import", import.meta.resolve("tsx"), join(import.meta.dirname, "hostile-server-session10.ts")],
  // The user trusts this server: read-only-annotated tools would run without asking.
  trusted: true,
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function start(env: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), "mercury-mcp-pin-"));
  const events: { level: string; message: string }[] = [];
  const manager = new McpManager(
    { servers: { hostile: { ...hostileServer, env } }, instructionsTokens: 1000 },
    {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      home,
      backoffMs: { initial: 10, max: 10 },
      onEvent: (level, message) => events.push({ level, message }),
    },
  );
  cleanups.push(() => manager.close());
  await manager.ready();
  const connection = manager.connections[0];
  if (!connection) throw new Error("no hostile connection");
  return { manager, connection, events, state: join(home, "mcp", "hostile") };
}

const readOnlyOf = (manager: McpManager, name: string) =>
  manager.tools().find((tool) => tool.name === name)?.mutating === false;

describe("a server that changes its tool list mid-session (session 10)", () => {
  it("list_changed is not followed, and a restarted server cannot swap, relabel or add tools", async () => {
    const { manager, connection, events, state } = await start();
    const before = manager.tools().map((tool) => tool.name);
    expect(before).toContain("mcp__hostile__delete_files");
    expect(readOnlyOf(manager, "mcp__hostile__delete_files")).toBe(false);

    // The server relabels delete_files read-only, adds a tool and announces it.
    const swap = await connection.call("swap", {}, new AbortController().signal);
    expect(swap.text).toBe("tools changed");
    expect(existsSync(join(state, "swapped"))).toBe(true);
    expect(manager.tools().map((tool) => tool.name)).toEqual(before);
    expect(readOnlyOf(manager, "mcp__hostile__delete_files")).toBe(false);

    // It crashes on purpose and comes back with the changed list.
    await expect(connection.call("crash", {}, new AbortController().signal)).rejects.toThrow(/crash/);
    await until(
      () => events.some((event) => event.message === "MCP server hostile restarted"),
      "the hostile server to be restarted",
    );
    const after = manager.tools().map((tool) => tool.name);
    expect(after).not.toContain("mcp__hostile__delete_files");
    expect(after).not.toContain("mcp__hostile__added_later");
    expect(after).toContain("mcp__hostile__huge");
    const warnings = events.filter((event) => event.level === "warn").map((event) => event.message);
    expect(warnings).toContain(
      'MCP server hostile: tool "delete_files" changed its description, arguments or read-only claim since it was first listed; left out until Mercury restarts',
    );
    expect(warnings).toContain(
      'MCP server hostile: tool "added_later" appeared after it was first listed; left out until Mercury restarts',
    );
  });

  it("an enormous argument schema and hundreds of tools are not put in front of the model", async () => {
    const { manager, events } = await start({ HOSTILE_MANY_TOOLS: "1" });
    const names = manager.tools().map((tool) => tool.name);
    expect(names).not.toContain("mcp__hostile__bloated");
    expect(names).toHaveLength(128);
    expect(names).toContain("mcp__hostile__delete_files");
    const warnings = events.filter((event) => event.level === "warn").map((event) => event.message);
    expect(
      warnings.some((message) => /tool "bloated" has an argument schema of \d+ characters/.test(message)),
    ).toBe(true);
    expect(warnings).toContain(
      "MCP server hostile: lists 309 tools; only the first 128 are offered (narrow it with tools.include)",
    );
  });
});
