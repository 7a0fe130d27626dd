/**
 * A loopback OpenAI-compatible server (127.0.0.1, random port) driven by ScriptedReply (./script.ts),
 * for tests that go through the real `@ai-sdk/openai-compatible` adapter or run the built `mercury`
 * binary with MERCURY_BASE_URL=server.url.
 *
 *   const server = await startFakeOpenAIServer({ replies: [{ text: "Hello" }], apiKey: "sk-test" });
 *   // ... point the provider at server.url ("http://127.0.0.1:PORT/v1") ...
 *   server.push({ error: { status: 500, message: "boom" } }, { text: "recovered" });
 *   server.chatRequests()[0].body   // the parsed JSON the client sent
 *   await server.close();           // always; it also ends hung responses
 *
 * Routes:
 *   POST /v1/chat/completions  takes the next reply. `stream: true` → SSE: a role chunk, then
 *       reasoning_content deltas (DeepSeek style), content deltas, tool_calls deltas (index, id and
 *       name first, arguments in two pieces), a finish_reason chunk, then `data: [DONE]`. Usage goes
 *       in a separate `choices: []` chunk when the body asks `stream_options.include_usage` (OpenAI),
 *       otherwise on the finish chunk (DeepSeek style) unless `usageOnlyWhenRequested` is set.
 *       `stream` false/absent → one chat.completion JSON.
 *   GET  /v1/models            the `models` option as an OpenAI model list (connection tests).
 *   POST /_fake/replies        appends a JSON array of ScriptedReply (for a server in another process).
 *   GET  /_fake/requests       the recorded requests as JSON.
 * An error reply answers with its status, an OpenAI error body and Retry-After. A hang sends nothing
 * (or its deltas) and then waits; close() destroys it. A cut destroys the socket before the finish
 * chunk (or, with endCleanly, ends with `[DONE]` and no finish_reason). An empty queue answers a loud
 * 500 naming the request number and last user message.
 * With `apiKey`, /v1 routes without `Authorization: Bearer <apiKey>` get OpenAI's 401 and consume
 * no reply.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { z } from "zod";
import {
  completion,
  contentDeltas,
  sendError,
  sendJson,
  sendScriptedError,
  usageJson,
} from "./openai-wire.js";
import {
  describeLastUserMessage,
  finishReasonOf,
  isCutReply,
  isErrorReply,
  isHangReply,
  parseScriptedReplies,
  RAW_FINISH_REASON,
  type ScriptedReply,
} from "./script.js";

export interface FakeOpenAIServerOptions {
  replies?: ScriptedReply[];
  /** When set, /v1 routes require `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Model ids listed by GET /v1/models (default ["fake-model"]). */
  models?: string[];
  /** Send usage only when the request asks for it with stream_options.include_usage, as OpenAI does. */
  usageOnlyWhenRequested?: boolean;
  /** Port on 127.0.0.1; default 0 (a free port). Tests should keep 0. */
  port?: number;
}

export interface RecordedRequest {
  /** 1-based, over every request the server received (any route). */
  number: number;
  method: string;
  path: string;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The parsed JSON body; undefined for requests without a body. */
  body: unknown;
}

export interface FakeOpenAIServer {
  /** Base URL including /v1, e.g. http://127.0.0.1:54321/v1 */
  url: string;
  push(...replies: ScriptedReply[]): void;
  requests: RecordedRequest[];
  /** The POST /v1/chat/completions requests only. */
  chatRequests(): RecordedRequest[];
  /** Replies not consumed yet. */
  remaining(): number;
  /**
   * Holds every chat request (recorded, not answered) until the returned function is called: a slow
   * model whose timing the test controls. `arrived` resolves when the first held request came in.
   */
  hold(): { release(): void; arrived: Promise<void> };
  close(): Promise<void>;
}

const chatBodySchema = z.looseObject({
  model: z.string(),
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown().optional() })),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
});
type ChatBody = z.infer<typeof chatBodySchema>;

export async function startFakeOpenAIServer(
  options: FakeOpenAIServerOptions = {},
): Promise<FakeOpenAIServer> {
  const queue: ScriptedReply[] = [...(options.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const models = options.models ?? ["fake-model"];
  let chatCount = 0;
  let held: { gate: Promise<void>; arrived(): void } | null = null;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A handler bug must be visible to the test, not turn into a hung client.
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) sendError(res, 500, `fake OpenAI server: internal error: ${message}`);
      else res.destroy(error instanceof Error ? error : new Error(message));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const method = req.method ?? "GET";
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        requests.push(record(requests.length + 1, req, path, raw));
        sendError(res, 400, "fake OpenAI server: request body is not valid JSON", "invalid_request_error");
        return;
      }
    }
    const recorded = record(requests.length + 1, req, path, body);
    requests.push(recorded);

    if (path.startsWith("/_fake/")) return handleControl(method, path, body, res);
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      // Like OpenAI, but without echoing the presented key: it is a secret even in tests.
      sendError(res, 401, "Incorrect API key provided", "invalid_request_error", "invalid_api_key");
      return;
    }
    if (method === "GET" && path === "/v1/models") {
      sendJson(res, 200, {
        object: "list",
        data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })),
      });
      return;
    }
    if (method === "POST" && path === "/v1/chat/completions") {
      const parsed = chatBodySchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        sendError(
          res,
          400,
          `fake OpenAI server: invalid chat request at ${issue?.path.join(".") ?? "(root)"}: ${issue?.message ?? "unknown"}`,
          "invalid_request_error",
        );
        return;
      }
      chatCount += 1;
      const number = chatCount;
      if (held) {
        held.arrived();
        await held.gate;
      }
      return answerChat(parsed.data, number, res);
    }
    sendError(res, 404, `fake OpenAI server: no route ${method} ${path}`, "invalid_request_error");
  }

  function handleControl(method: string, path: string, body: unknown, res: ServerResponse): void {
    if (method === "POST" && path === "/_fake/replies") {
      try {
        queue.push(...parseScriptedReplies(body));
      } catch (error) {
        sendError(res, 400, error instanceof Error ? error.message : String(error), "invalid_request_error");
        return;
      }
      sendJson(res, 200, { remaining: queue.length });
      return;
    }
    if (method === "GET" && path === "/_fake/requests") {
      sendJson(res, 200, requests);
      return;
    }
    sendError(res, 404, `fake OpenAI server: no control route ${method} ${path}`, "invalid_request_error");
  }

  async function answerChat(body: ChatBody, number: number, res: ServerResponse): Promise<void> {
    const reply = queue.shift();
    if (reply === undefined) {
      sendError(
        res,
        500,
        `fake OpenAI server: no reply left for chat request #${number}; last user message: ${describeLastUserMessage(lastUserText(body))}`,
        "server_error",
        "fake_queue_empty",
      );
      return;
    }
    if (isErrorReply(reply)) {
      sendScriptedError(res, reply);
      return;
    }
    const id = `chatcmpl-fake-${number}`;
    if (body.stream !== true) {
      if (isHangReply(reply)) return; // Never answered; close() or the client's abort ends it.
      if (isCutReply(reply) && reply.endCleanly === true) {
        const answer = completion(id, body.model, reply, number);
        for (const choice of answer.choices) choice.finish_reason = null;
        sendJson(res, 200, answer);
        return;
      }
      if (isCutReply(reply)) {
        res.writeHead(200, { "content-type": "application/json" });
        res.write(`{"id":"${id}","object":"chat.completion","choices":[`);
        res.socket?.destroy();
        return;
      }
      sendJson(res, 200, completion(id, body.model, reply, number));
      return;
    }
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): object => ({
      id,
      object: "chat.completion.chunk",
      created: 0,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    const deltas = contentDeltas(reply, number, chunk);
    if (isHangReply(reply) && deltas.length === 0) return; // Accepted, nothing sent, never finished.
    let gone = false;
    res.on("close", () => {
      gone = true;
    });
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    const delayMs = reply.chunkDelayMs ?? 0;
    const events: object[] = [chunk({ role: "assistant", content: "" }), ...deltas];
    for (const [i, event] of events.entries()) {
      if (i > 0 && delayMs > 0) await sleep(delayMs);
      if (gone) return; // The client went away (abort); stop writing.
      res.write(`data: ${JSON.stringify(event)}\n\n`);
    }
    if (isHangReply(reply)) return;
    if (isCutReply(reply) && reply.endCleanly === true) {
      res.end("data: [DONE]\n\n");
      return;
    }
    if (isCutReply(reply)) {
      // Give the written deltas a chance to leave before the cut, so the client sees them first.
      await sleep(Math.max(delayMs, 10));
      res.socket?.destroy();
      return;
    }
    const usage = usageJson(reply.usage);
    const wantsUsage = body.stream_options?.include_usage === true;
    const finish = chunk({}, RAW_FINISH_REASON[finishReasonOf(reply)]);
    if (!wantsUsage && options.usageOnlyWhenRequested !== true) Object.assign(finish, { usage });
    if (delayMs > 0) await sleep(delayMs);
    if (gone) return;
    res.write(`data: ${JSON.stringify(finish)}\n\n`);
    if (wantsUsage) {
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: body.model, choices: [], usage })}\n\n`,
      );
    }
    res.end("data: [DONE]\n\n");
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    push: (...replies) => {
      queue.push(...replies);
    },
    requests,
    chatRequests: () => requests.filter((r) => r.method === "POST" && r.path === "/v1/chat/completions"),
    remaining: () => queue.length,
    hold: () => {
      let release = () => {};
      let arrived = () => {};
      const gate = new Promise<void>((resolve) => {
        release = () => {
          held = null;
          resolve();
        };
      });
      const arrival = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      held = { gate, arrived };
      return { release, arrived: arrival };
    },
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Hung and keep-alive responses would hold server.close() open forever.
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

function record(number: number, req: IncomingMessage, path: string, body: unknown): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return { number, method: req.method ?? "GET", path, headers, body };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function lastUserText(body: ChatBody): string | undefined {
  for (let i = body.messages.length - 1; i >= 0; i -= 1) {
    const message = body.messages[i];
    if (message?.role !== "user") continue;
    if (typeof message.content === "string") return message.content;
    return JSON.stringify(message.content);
  }
  return undefined;
}
