import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decide } from "../../src/permissions/decide.js";
import { pathsInArguments } from "../../src/permissions/mcp-arguments.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

/**
 * Promise 21: every MCP call goes through the permission engine. Before session 8 the engine saw
 * only the server and tool names, never the arguments, so a tool listed in `tools.allow` (or a
 * trusted server's read-only tool) read `~/.ssh/id_rsa` when the model passed it as `path`, and a
 * server run with `sandbox: false` could write outside the workspace without a question.
 */
let sandbox: Sandbox;
beforeAll(() => {
  sandbox = createSandbox({ withHardLinkedSecret: false });
});
afterAll(() => sandbox.cleanup());

function call(
  args: unknown,
  options: { allowedByConfig?: boolean; readOnly?: boolean; trusted?: boolean } = {},
) {
  return decide(
    {
      kind: "mcp",
      server: "files",
      tool: "read_text",
      readOnly: options.readOnly ?? true,
      trusted: options.trusted ?? true,
      allowedByConfig: options.allowedByConfig ?? true,
      arguments: args,
    },
    sandbox.context,
  );
}

describe("MCP call arguments go through the path policy", () => {
  it.each([
    [{ path: "%HOME%/.ssh/id_rsa" }],
    [{ path: "~/.ssh/id_rsa" }],
    [{ path: "~/.aws/credentials" }],
    [{ uri: "file://%HOME%/.ssh/id_rsa" }],
    [{ files: ["README.md", "%HOME%/.ssh/id_rsa"] }],
    [{ options: { nested: { target: "%MH%/mercury.db" } } }],
    [{ path: "./innocent.txt" }],
  ])(
    "denies a secret or Mercury's state named in the arguments, even for a tool the config allows: %j",
    async (args) => {
      const filled = JSON.parse(sandbox.fill(JSON.stringify(args)));
      const decision = await call(filled);
      expect(decision.decision).toBe("deny");
      expect(decision.rule).toBe("mcp.argument-path");
      expect(decision.reason).toMatch(/argument .* of read_text on MCP server files names /);
    },
  );

  it("asks, instead of allowing, when an argument names a path outside the workspace", async () => {
    const decision = await call({ path: sandbox.fill("%OUT%/notes.txt") });
    expect(decision).toMatchObject({ decision: "ask", rule: "mcp.argument-path" });
  });

  it("a writing tool of an untrusted server still asks as before, and a secret path still denies", async () => {
    const inside = await call(
      { path: "src/index.ts" },
      { allowedByConfig: false, readOnly: false, trusted: false },
    );
    expect(inside).toMatchObject({ decision: "ask", rule: "mcp.call" });
    const secret = await call(
      { path: "~/.ssh/id_rsa" },
      { allowedByConfig: false, readOnly: false, trusted: false },
    );
    expect(secret).toMatchObject({ decision: "deny", rule: "mcp.argument-path" });
  });

  it("leaves allowed calls whose strings are not paths on this machine alone", async () => {
    for (const args of [
      { path: "README.md" },
      { route: "/v1/users/42" },
      { query: "how do I rotate ~ keys" },
      { url: "https://example.com/a/b" },
      { note: "see ../ for context\nsecond line" },
      { path: sandbox.fill("%PROJECT%/README.md") },
    ]) {
      expect((await call(args)).decision, JSON.stringify(args)).toBe("allow");
    }
  });

  it("finds paths at any key, in arrays and nested objects, and stops at a bounded number of strings", () => {
    const found = pathsInArguments(
      { a: ["x", "~/.netrc"], b: { c: "/etc/passwd" }, d: "/nonexistent-root-folder/x" },
      "/tmp",
    );
    expect(found).toEqual([
      { key: "a[1]", path: "~/.netrc" },
      { key: "b.c", path: "/etc/passwd" },
    ]);
    const many = Array.from({ length: 1000 }, (_, index) =>
      index === 999 ? "~/.ssh/id_rsa" : `word ${index}`,
    );
    expect(pathsInArguments({ many }, "/tmp")).toEqual([]);
  });
});

describe("an MCP tool named *", () => {
  it("is denied: its subject is the whole-server grant's", async () => {
    const decision = await decide(
      { kind: "mcp", server: "odd", tool: "*", readOnly: true, trusted: true, allowedByConfig: true },
      sandbox.context,
    );
    expect(decision).toMatchObject({ decision: "deny", rule: "mcp.tool-name" });
  });
});
