import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { programFolders } from "../../src/mcp/sandbox.js";

describe("what a sandboxed MCP server may read of the hidden /tmp", () => {
  it("shows the package folder its command line names, and nothing else of /tmp", () => {
    const root = mkdtempSync(join(tmpdir(), "mercury-mcp-pkg-"));
    const packageRoot = join(root, "server");
    mkdirSync(join(packageRoot, "dist"), { recursive: true });
    writeFileSync(join(packageRoot, "package.json"), "{}");
    writeFileSync(join(packageRoot, "dist", "main.js"), "");
    const loose = join(root, "loose");
    mkdirSync(loose);
    writeFileSync(join(loose, "tool.js"), "");
    expect(
      programFolders([
        "/usr/bin/node",
        join(packageRoot, "dist", "main.js"),
        join(loose, "tool.js"),
        "--flag",
        "/tmp/does-not-exist/x.js",
      ]),
    ).toEqual([packageRoot, loose]);
    // A file directly in /tmp never opens /tmp itself.
    const direct = join("/tmp", `mercury-direct-${process.pid}.js`);
    writeFileSync(direct, "");
    expect(programFolders([direct])).toEqual([]);
  });
});
