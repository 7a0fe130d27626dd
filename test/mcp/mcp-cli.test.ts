import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";
import { writeFiles } from "../skills/helpers.js";

const serverMain = join(import.meta.dirname, "../fakes/mcp-server.ts");
const tsx = import.meta.resolve("tsx");
const config = `mcp:
  servers:
    fake:
      command: ${JSON.stringify(process.execPath)}
      args: ["--import", ${JSON.stringify(tsx)}, ${JSON.stringify(serverMain)}]
      trusted: true
      tools:
        allow: [write_note]
    broken:
      command: /nonexistent/mcp-server
    plain:
      command: ${JSON.stringify(process.execPath)}
      args: ["--import", ${JSON.stringify(tsx)}, ${JSON.stringify(serverMain)}]
      sandbox: false
`;

describe("mercury mcp and doctor (built binary)", () => {
  it("tools shows each tool as the model sees it and whether a call asks; a server that does not start exits 1", async () => {
    const { home, userHome } = makeHome(config);
    const list = JSON.parse((await runCli(["mcp", "list", "--json"], { home, userHome })).stdout);
    expect(
      list.servers.map((server: { name: string; sandbox: boolean }) => [server.name, server.sandbox]),
    ).toEqual([
      ["fake", true],
      ["broken", true],
      ["plain", false],
    ]);
    const listText = (await runCli(["mcp", "list"], { home, userHome })).stdout;
    expect(listText).toMatch(/^fake .* sandboxed/m);
    expect(listText).toMatch(/^plain .* NOT sandboxed/m);
    const tools = await runCli(["mcp", "tools", "fake", "--json"], { home, userHome });
    expect(tools.code).toBe(0);
    const byName = Object.fromEntries(
      JSON.parse(tools.stdout).tools.map((tool: { name: string; decision: string; rule: string }) => [
        tool.name,
        `${tool.decision}:${tool.rule}`,
      ]),
    );
    expect(byName).toMatchObject({
      mcp__fake__echo: "allow:mcp.trusted-read-only",
      mcp__fake__write_note: "allow:mcp.configured",
      mcp__fake__crash: "ask:mcp.call",
    });
    const broken = await runCli(["mcp", "test", "broken"], { home, userHome });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain("does not start");
    const unknown = await runCli(["mcp", "test", "nope"], { home, userHome });
    expect(unknown.code).toBe(2);
  });

  it("doctor reports MCP servers that do not start and skills that failed to load", async () => {
    const { home, userHome } = makeHome(config);
    writeFiles(join(home, "skills"), { "bad/SKILL.md": "---\nname: bad\n---\nno description\n" });
    const doctor = await runCli(["doctor", "--json"], { home, userHome });
    const checks: { name: string; status: string; detail: string }[] = JSON.parse(doctor.stdout).checks;
    expect(checks.find((check) => check.name === "mcp broken")).toMatchObject({ status: "fail" });
    expect(checks.find((check) => check.name === "mcp fake")).toMatchObject({ status: "ok" });
    expect(checks.find((check) => check.name === "mcp fake")?.detail).toMatch(/^stdio, sandboxed, \d+ tool/);
    expect(checks.find((check) => check.name === "mcp plain")?.detail).toContain(
      "NOT sandboxed (sandbox: false)",
    );
    expect(checks.find((check) => check.name === "skills")?.detail).toContain("no description");
  });

  it("a config with both command and url is refused with the reason", async () => {
    const { home, userHome } = makeHome(
      "mcp:\n  servers:\n    both:\n      command: x\n      url: http://127.0.0.1:1/mcp\n",
    );
    const result = await runCli(["mcp", "list"], { home, userHome });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("either command");
  });
});
