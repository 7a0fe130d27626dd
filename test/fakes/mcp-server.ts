/**
 * A real MCP server written with the official SDK, for tests. Run as a process it serves stdio:
 *   node --import tsx test/fakes/mcp-server.ts
 * `startHttpMcpServer()` serves the same tools over streamable HTTP on 127.0.0.1.
 *
 * Tools: echo (read-only), write_note (not read-only), show_env (read-only: the server's environment
 * variable names and HOME), fail (isError), crash (the process exits), hang (never answers),
 * read_path / write_path (a file's text, or the error; for the sandbox tests), connect_to (a TCP
 * connection's outcome: "connected" or the error code; for the network filter tests).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { pathToFileURL } from "node:url";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

export function createFakeMcpServer(): McpServer {
  const server = new McpServer(
    { name: "fake", version: "1.0.0" },
    { instructions: "Fake server: use echo to repeat text." },
  );
  server.registerTool(
    "echo",
    {
      description: "Repeat the text.",
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }),
  );
  server.registerTool(
    "write_note",
    { description: "Write a note.", inputSchema: z.object({ note: z.string() }) },
    async ({ note }) => ({ content: [{ type: "text", text: `written: ${note}` }] }),
  );
  server.registerTool(
    "show_env",
    { description: "Environment variable names.", annotations: { readOnlyHint: true } },
    async () => ({
      content: [
        {
          type: "text",
          text: JSON.stringify({
            names: Object.keys(process.env).sort(),
            home: process.env.HOME,
            cwd: process.cwd(),
            named: process.env.NAMED_SECRET ?? null,
          }),
        },
      ],
    }),
  );
  server.registerTool(
    "read_path",
    { description: "Read a file.", inputSchema: z.object({ path: z.string() }) },
    async ({ path }) => {
      try {
        return { content: [{ type: "text", text: `read: ${readFileSync(path, "utf8")}` }] };
      } catch (error) {
        return { content: [{ type: "text", text: `cannot read: ${String(error)}` }], isError: true };
      }
    },
  );
  server.registerTool(
    "write_path",
    { description: "Write a file.", inputSchema: z.object({ path: z.string(), text: z.string() }) },
    async ({ path, text }) => {
      try {
        writeFileSync(path, text);
        return { content: [{ type: "text", text: `wrote: ${path}` }] };
      } catch (error) {
        return { content: [{ type: "text", text: `cannot write: ${String(error)}` }], isError: true };
      }
    },
  );
  server.registerTool(
    "connect_to",
    {
      description: "Open a TCP connection; say whether it connected or the error code.",
      inputSchema: z.object({ host: z.string(), port: z.number().int() }),
    },
    async ({ host, port }) => {
      const outcome = await new Promise<string>((resolve) => {
        const socket = connect({ host, port }, () => {
          socket.destroy();
          resolve("connected");
        });
        socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
      return { content: [{ type: "text", text: outcome }] };
    },
  );
  server.registerTool("fail", { description: "Always fails." }, async () => ({
    content: [{ type: "text", text: "the fake tool failed on purpose" }],
    isError: true,
  }));
  server.registerTool("crash", { description: "Exits the server." }, async () => {
    process.exit(3);
  });
  server.registerTool("hang", { description: "Never answers." }, () => new Promise(() => {}));
  return server;
}

/** Streamable HTTP on 127.0.0.1 (stateless: a server and transport per request). */
export async function startHttpMcpServer(): Promise<{
  url: string;
  headers: Record<string, string>[];
  close(): Promise<void>;
}> {
  const seen: Record<string, string>[] = [];
  const http: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers))
      if (typeof value === "string") headers.set(key, value);
    seen.push(Object.fromEntries(headers.entries()));
    const request = new Request(`http://127.0.0.1${req.url ?? "/"}`, {
      method: req.method ?? "GET",
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const server = createFakeMcpServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers: seen,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections();
        http.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await createFakeMcpServer().connect(new StdioServerTransport());
}
