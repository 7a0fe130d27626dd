import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { McpConnection } from "../../src/mcp/connection.js";
import { StderrTail, stderrTailCharacters } from "../../src/mcp/stderr-tail.js";

/**
 * Session 12: a stdio server stopped by the sandbox's disk watcher (which writes its reason on the
 * server's stderr, prefixed `mercury:`) is reported with that reason, not just "the server exited";
 * the credentials the server was given never reach the message, nor terminal escapes.
 */

// A minimal stdio MCP server (no SDK: it starts in milliseconds). On a tool call it writes the disk
// watcher's line, its credentials and an escape sequence to stderr, then dies as the watcher kills it.
const serverSource = `
const readline = require("node:readline");
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line);
  if (request.method === "initialize")
    send({ id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "disk", version: "1" } } });
  else if (request.method === "tools/list")
    send({ id: request.id, result: { tools: [{ name: "fill", description: "Fills.", inputSchema: { type: "object" } }] } });
  else if (request.method === "tools/call") {
    process.stderr.write("debug: token " + process.env.SERVICE_TOKEN + " literal " + process.env.LITERAL_KEY + "\\n");
    process.stderr.write("x".repeat(100000) + "\\n");
    process.stderr.write("\\u001b]0;owned\\u0007mercury: stopped: the disk holding /tmp fell to 90 MiB free\\n");
    process.exit(137);
  }
});
`;

describe("MCP stdio server stderr (session 12)", () => {
  it("says why a server exited: the disk watcher's line, credentials scrubbed, no escapes", async () => {
    const folder = mkdtempSync(join(tmpdir(), "mercury-mcp-stderr-"));
    const script = join(folder, "server.cjs");
    writeFileSync(script, serverSource);
    const warnings: string[] = [];
    let stopped: (message: string) => void = () => undefined;
    const stoppedMessage = new Promise<string>((resolve) => {
      stopped = resolve;
    });
    const connection = new McpConnection(
      "disk",
      {
        command: process.execPath,
        args: [script],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config syntax, not a template
        env: { SERVICE_TOKEN: "${MY_TOKEN}", LITERAL_KEY: "literal-secret-99" },
      },
      {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", MY_TOKEN: "tok-hunter2-42" },
        home: join(folder, "home"),
        backoffMs: { initial: 3_600_000, max: 3_600_000 },
        onEvent: (level, message) => {
          if (level === "warn") warnings.push(message);
          if (message.includes("stopped unexpectedly")) stopped(message);
        },
      },
    );
    try {
      await connection.start();
      await expect(connection.call("fill", {}, new AbortController().signal)).rejects.toThrow();
      const warning = await stoppedMessage;
      const lastError = connection.lastError ?? "";
      for (const text of [warning, lastError]) {
        expect(text).toContain("mercury: stopped: the disk holding /tmp fell to 90 MiB free");
        expect(text).not.toContain("tok-hunter2-42");
        expect(text).not.toContain("literal-secret-99");
        expect(text).not.toContain("\u001b");
        expect(text).not.toContain("\u0007");
      }
      expect(lastError.length).toBeLessThan(1000);
    } finally {
      await connection.close();
    }
  });

  it("keeps a bounded tail and, without Mercury's line, the server's last lines (credentials scrubbed)", async () => {
    const tail = new StderrTail();
    const stream = new PassThrough();
    tail.attach(stream);
    stream.write(`${"y".repeat(stderrTailCharacters * 4)}\n`);
    stream.write("Error: bad key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n\u001b[2J");
    stream.end();
    await once(stream, "end");
    const reason = tail.reason((text) => text.split("AAAA").join(""));
    expect(reason).toContain("Error: bad key");
    expect(reason).not.toContain("AAAA");
    expect(reason).not.toContain("\u001b");
    expect(reason.length).toBeLessThanOrEqual(600);
  });
});
