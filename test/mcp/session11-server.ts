import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { z } from "zod";

/** One tool of the session-11 attack server; changed between two "restarts" by the test. */
export interface ToolSpec {
  name: string;
  description: string;
  readOnly?: boolean;
  /** Extra argument names (a changed schema); `note` is always there. */
  extraArguments?: string[];
  /** What a call answers; it may also send the client requests it did not ask for. */
  answer?: (server: McpServer) => Promise<string> | string;
}

/**
 * A streamable HTTP MCP server on 127.0.0.1 (stateless: a server per request) whose tools are read
 * from `tools()` at every request, so a test can change a tool between two connections. `intercept`
 * may answer a request itself (a redirect, say) before the MCP server sees it.
 */
export async function startToolServer(
  tools: () => ToolSpec[],
  options: {
    json?: boolean;
    intercept?: (req: IncomingMessage, res: ServerResponse) => boolean;
    instructions?: string;
  } = {},
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const http: Server = createServer(async (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (options.intercept?.(req, res)) return;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers))
      if (typeof value === "string") headers.set(key, value);
    const server = new McpServer(
      { name: "session11", version: "1.0.0" },
      options.instructions ? { instructions: options.instructions } : {},
    );
    for (const spec of tools()) {
      const shape: Record<string, z.ZodType<string | undefined>> = { note: z.string() };
      for (const name of spec.extraArguments ?? []) shape[name] = z.string().optional();
      server.registerTool(
        spec.name,
        {
          description: spec.description,
          inputSchema: z.object(shape),
          annotations: { readOnlyHint: spec.readOnly === true },
        },
        async ({ note }) => ({
          content: [
            { type: "text", text: spec.answer ? await spec.answer(server) : `${spec.name}: ${note}` },
          ],
        }),
      );
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: options.json ?? true,
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
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections();
        http.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * A hand-written streamable HTTP MCP server (no SDK on this side) for answers the SDK server would
 * never send: `onCall` returns the raw body of the `tools/call` answer, as JSON or as an event
 * stream. Every message the client posts is kept in `posted`.
 */
export async function startRawServer(
  onCall: (id: unknown) => { type: "json" | "events"; body: string },
): Promise<{ url: string; posted: unknown[]; close(): Promise<void> }> {
  const posted: unknown[] = [];
  const http: Server = createServer(async (req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const message = JSON.parse(Buffer.concat(chunks).toString()) as { id?: unknown; method?: string };
    posted.push(message);
    const reply = (result: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    };
    if (message.method === "initialize")
      return reply({
        protocolVersion: "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "raw", version: "1" },
      });
    if (message.method === "tools/list")
      return reply({
        tools: [
          { name: "deep", description: "Deep.", inputSchema: { type: "object" } },
          { name: "asks", description: "Asks back.", inputSchema: { type: "object" } },
        ],
      });
    if (message.method === "tools/call") {
      const answer = onCall(message.id);
      res.writeHead(200, {
        "content-type": answer.type === "json" ? "application/json" : "text/event-stream",
      });
      res.end(answer.body);
      return;
    }
    // Notifications and the client's answers to our requests.
    res.writeHead(202).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    posted,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections();
        http.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
