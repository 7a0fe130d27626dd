import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { McpConnection } from "../../src/mcp/connection.js";
import { maxHttpMessageBytes } from "../../src/mcp/http-limit.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A streamable HTTP MCP server on 127.0.0.1 whose `huge` tool answers with more than the limit. */
async function hugeAnswerServer(json: boolean): Promise<string> {
  const http: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers))
      if (typeof value === "string") headers.set(key, value);
    const server = new McpServer({ name: "huge", version: "1.0.0" });
    server.registerTool("huge", { description: "Too much." }, async () => ({
      content: [{ type: "text", text: "y".repeat(maxHttpMessageBytes + 1024) }],
    }));
    server.registerTool("small", { description: "Fine." }, async () => ({
      content: [{ type: "text", text: "small answer" }],
    }));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: json,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(
      new Request(`http://127.0.0.1${req.url ?? "/"}`, {
        method: req.method ?? "GET",
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    if (!response.body) return res.end();
    for await (const chunk of response.body) res.write(chunk);
    res.end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections();
        http.close((error) => (error ? reject(error) : resolve()));
      }),
  );
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

describe("an HTTP MCP server that answers with an enormous message (session 10)", () => {
  for (const json of [true, false]) {
    it(`fails that call with the reason, and the next call still works (${json ? "JSON" : "event stream"})`, async () => {
      const url = await hugeAnswerServer(json);
      const connection = new McpConnection(
        "huge",
        { url, timeoutMs: 600_000 },
        { env: {}, home: mkdtempSync(join(tmpdir(), "mercury-mcp-huge-")) },
      );
      cleanups.push(() => connection.close());
      await connection.start();
      const signal = new AbortController().signal;
      await expect(connection.call("huge", {}, signal)).rejects.toThrow(
        `MCP server huge sent a message larger than ${maxHttpMessageBytes} bytes`,
      );
      expect((await connection.call("small", {}, signal)).text).toBe("small answer");
    });
  }
});
