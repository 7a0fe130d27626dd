import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HashEmbedder } from "../../src/memory/search/hash-embedder.js";

export interface EmbeddingsServerOptions {
  dimensions?: number;
  /** Reply with this HTTP status and body instead of vectors. */
  failWith?: { status: number; body: string };
  /** Reply 200 with this raw body (malformed responses). */
  rawBody?: string;
}

export interface EmbeddingsServer {
  baseUrl: string;
  requests: { authorization: string | undefined; body: unknown }[];
  options: EmbeddingsServerOptions;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** An OpenAI-compatible POST /v1/embeddings on 127.0.0.1, with deterministic hash vectors. */
export async function startEmbeddingsServer(
  options: EmbeddingsServerOptions = {},
): Promise<EmbeddingsServer> {
  const requests: EmbeddingsServer["requests"] = [];
  const state: EmbeddingsServer = { baseUrl: "", requests, options, close: async () => {} };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const text = await readBody(request);
      const body: unknown = text === "" ? undefined : JSON.parse(text);
      requests.push({ authorization: request.headers.authorization, body });
      if (request.method !== "POST" || request.url !== "/v1/embeddings") {
        response.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
        return;
      }
      const current = state.options;
      if (current.failWith) {
        response
          .writeHead(current.failWith.status, { "content-type": "application/json" })
          .end(current.failWith.body);
        return;
      }
      if (current.rawBody !== undefined) {
        response.writeHead(200, { "content-type": "application/json" }).end(current.rawBody);
        return;
      }
      const input = (body as { input: string[] }).input;
      const embedder = new HashEmbedder(current.dimensions ?? 384);
      const data = input.map((item, index) => ({
        object: "embedding",
        index,
        embedding: [...embedder.embedOne(item)],
      }));
      // Reversed on purpose: clients must order by `index`, not by position.
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ data: data.reverse() }));
    })().catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  state.baseUrl = `http://127.0.0.1:${port}/v1`;
  state.close = () =>
    new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return state;
}
