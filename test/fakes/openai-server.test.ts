/**
 * Self-tests of the loopback OpenAI-compatible server, driven through the real
 * `@ai-sdk/openai-compatible` adapter and `streamText`/`generateText`, plus raw HTTP for wire details.
 * These also pin down what the SDK reports for each failure shape, which the agent loop relies on.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError } from "@ai-sdk/provider";
import {
  generateText,
  jsonSchema,
  type ModelMessage,
  streamText,
  type TextStreamPart,
  type ToolSet,
  tool,
} from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "./openai-server.js";

const API_KEY = "sk-test-fake";

const tools = {
  read_file: tool({
    description: "Read a file",
    inputSchema: jsonSchema<{ path: string }>({
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    }),
  }),
};

let server: FakeOpenAIServer;

beforeEach(async () => {
  server = await startFakeOpenAIServer({ apiKey: API_KEY });
});

afterEach(async () => {
  await server.close();
});

function model(options: { includeUsage?: boolean; apiKey?: string } = {}) {
  return createOpenAICompatible({
    baseURL: server.url,
    name: "fake",
    apiKey: options.apiKey ?? API_KEY,
    includeUsage: options.includeUsage ?? true,
  }).chatModel("fake-model");
}

async function run(options: {
  messages?: ModelMessage[];
  prompt?: string;
  abortSignal?: AbortSignal;
  maxRetries?: number;
  includeUsage?: boolean;
  apiKey?: string;
}) {
  const errors: unknown[] = [];
  const common = {
    model: model(options),
    tools,
    maxRetries: options.maxRetries ?? 0,
    abortSignal: options.abortSignal,
    onError: ({ error }: { error: unknown }) => {
      errors.push(error);
    },
  };
  const result =
    options.messages !== undefined
      ? streamText({ ...common, messages: options.messages })
      : streamText({ ...common, prompt: options.prompt ?? "hello" });
  const parts: TextStreamPart<ToolSet>[] = [];
  try {
    for await (const part of result.fullStream) parts.push(part);
  } catch (error) {
    return { result, parts, thrown: error, errors };
  }
  return { result, parts, thrown: undefined, errors };
}

const types = (parts: TextStreamPart<ToolSet>[]): string[] => parts.map((p) => p.type);
const textDeltas = (parts: TextStreamPart<ToolSet>[]): string[] =>
  parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : []));

describe("fake OpenAI server through @ai-sdk/openai-compatible", () => {
  it("streams an answer in several chunks with reasoning_content and usage (include_usage chunk)", async () => {
    server.push({
      reasoning: "Greeting detected.",
      text: "Hello there, friend.",
      usage: { inputTokens: 30, outputTokens: 12, reasoningTokens: 3, cachedInputTokens: 20 },
    });
    const { result, parts, thrown } = await run({ prompt: "hi" });
    expect(thrown).toBeUndefined();
    expect(textDeltas(parts)).toEqual(["Hello ", "there, ", "friend."]);
    expect(await result.reasoningText).toBe("Greeting detected.");
    expect(await result.finishReason).toBe("stop");
    const usage = await result.totalUsage;
    expect([usage.inputTokens, usage.outputTokens, usage.totalTokens]).toEqual([30, 12, 42]);
    expect(usage.outputTokenDetails.reasoningTokens).toBe(3);
    expect(usage.inputTokenDetails.cacheReadTokens).toBe(20);

    const [request] = server.chatRequests();
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.body).toMatchObject({
      model: "fake-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "hi" }],
    });
  });

  it("reports usage on the finish chunk when the client does not ask for it (DeepSeek style)", async () => {
    server.push({ text: "ok", usage: { inputTokens: 5, outputTokens: 1 } });
    const { result } = await run({ includeUsage: false });
    expect((await result.totalUsage).totalTokens).toBe(6);
    expect(server.chatRequests()[0]?.body).not.toHaveProperty("stream_options.include_usage");
  });

  it("round-trips a tool call, and replays the assistant's reasoning_content on the next request", async () => {
    server.push(
      {
        reasoning: "I should read it.",
        toolCalls: [{ id: "call_abc", name: "read_file", input: { path: "notes.md" } }],
      },
      { text: "It says hi." },
    );
    const first = await run({ prompt: "what is in notes.md?" });
    expect(first.thrown).toBeUndefined();
    expect(await first.result.finishReason).toBe("tool-calls");
    const calls = await first.result.toolCalls;
    expect(calls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ["call_abc", "read_file", { path: "notes.md" }],
    ]);

    const messages: ModelMessage[] = [
      { role: "user", content: "what is in notes.md?" },
      ...(await first.result.response).messages,
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_abc",
            toolName: "read_file",
            output: { type: "text", value: "hi" },
          },
        ],
      },
    ];
    const second = await run({ messages });
    expect(await second.result.text).toBe("It says hi.");
    const body = server.chatRequests()[1]?.body;
    expect(body).toMatchObject({
      tools: [{ type: "function", function: { name: "read_file" } }],
      messages: [
        { role: "user", content: "what is in notes.md?" },
        {
          role: "assistant",
          reasoning_content: "I should read it.",
          tool_calls: [
            {
              id: "call_abc",
              type: "function",
              function: { name: "read_file", arguments: '{"path":"notes.md"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_abc", content: "hi" },
      ],
    });
  });

  it("maps every scripted finish reason to the SDK's unified reason", async () => {
    const reasons = ["stop", "length", "content-filter", "tool-calls", "other"] as const;
    server.push(...reasons.map((finishReason) => ({ text: "x", finishReason })));
    const seen: string[] = [];
    for (const _ of reasons) seen.push(await (await run({})).result.finishReason);
    expect(seen).toEqual([...reasons]);
  });

  it("surfaces a 500 as an APICallError with statusCode 500 and the OpenAI error message", async () => {
    server.push({ error: { status: 500, message: "The server had an error" } });
    const { parts, thrown, errors } = await run({});
    expect(thrown).toBeUndefined();
    expect(types(parts)).toEqual(["start", "error"]);
    const [error] = errors;
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(500);
    expect((error as APICallError).isRetryable).toBe(true);
    expect((error as APICallError).message).toBe("The server had an error");
    expect(JSON.parse((error as APICallError).responseBody ?? "")).toEqual({
      error: { message: "The server had an error", type: "server_error", param: null, code: null },
    });
  });

  it("makes a 429's Retry-After header visible to the caller", async () => {
    server.push({ error: { status: 429, message: "Rate limit reached", retryAfterSeconds: 20 } });
    const { errors } = await run({});
    const error = errors[0] as APICallError;
    expect(error.statusCode).toBe(429);
    expect(error.isRetryable).toBe(true);
    expect(error.responseHeaders?.["retry-after"]).toBe("20");
    expect(error.data).toMatchObject({ error: { type: "rate_limit_error", code: "rate_limit_exceeded" } });
  });

  it("serves a 500 then an answer to the SDK's own retry (Retry-After 0 keeps it fast)", async () => {
    server.push({ error: { status: 500, message: "flaky", retryAfterSeconds: 0 } }, { text: "recovered" });
    const { result } = await run({ maxRetries: 1 });
    expect(await result.text).toBe("recovered");
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("cut before finish: deltas arrive, then iteration throws APICallError caused by 'terminated'", async () => {
    server.push({ cutBeforeFinish: true, reasoning: "hmm", text: ["half ", "an "] });
    const { result, parts, thrown, errors } = await run({});
    expect(textDeltas(parts)).toEqual(["half ", "an "]);
    expect(types(parts)).not.toContain("finish");
    expect(types(parts)).not.toContain("finish-step");
    expect(errors).toEqual([]); // Not an error part: the stream itself fails.
    expect(APICallError.isInstance(thrown)).toBe(true);
    const cut = thrown as APICallError;
    expect(cut.message).toBe("Failed to process successful response");
    expect(cut.statusCode).toBe(200);
    expect(cut.isRetryable).toBe(true);
    expect(cut.cause).toBeInstanceOf(TypeError);
    expect((cut.cause as TypeError).message).toBe("terminated");
    await expect(result.finishReason).rejects.toBe(thrown);
  });

  it("a clean end without finish_reason: an error part, then finish reason 'error' (no throw)", async () => {
    server.push({ cutBeforeFinish: true, endCleanly: true, text: ["half ", "an "] });
    const { result, parts, thrown, errors } = await run({});
    expect(thrown).toBeUndefined();
    expect(textDeltas(parts)).toEqual(["half ", "an "]);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe("Response stream ended without a finish reason.");
    expect(types(parts).slice(-3)).toEqual(["error", "finish-step", "finish"]);
    expect(await result.finishReason).toBe("error");
    expect((await result.totalUsage).totalTokens).toBeUndefined();
  });

  it("sends no usage at all with usageOnlyWhenRequested when the client does not ask", async () => {
    await server.close();
    server = await startFakeOpenAIServer({ apiKey: API_KEY, usageOnlyWhenRequested: true });
    server.push({ text: "a" }, { text: "b" });
    expect((await (await run({ includeUsage: false })).result.totalUsage).totalTokens).toBeUndefined();
    expect((await (await run({ includeUsage: true })).result.totalUsage).totalTokens).toBe(15);
  });

  it("survives a client that aborts a slow stream midway", async () => {
    server.push({ text: ["a", "b", "c", "d", "e", "f", "g", "h"], chunkDelayMs: 30 }, { text: "next" });
    const controller = new AbortController();
    const result = streamText({ model: model(), prompt: "x", abortSignal: controller.signal });
    const seen: string[] = [];
    for await (const part of result.fullStream) {
      seen.push(part.type);
      if (seen.filter((t) => t === "text-delta").length === 2) controller.abort();
    }
    expect(seen.at(-1)).toBe("abort");
    expect(seen.filter((t) => t === "text-delta")).toHaveLength(2);
    // The abandoned response does not break the server: the next request is answered.
    expect(await (await run({})).result.text).toBe("next");
  });

  it("hang with content: the deltas arrive, then the stream stalls until the AbortSignal fires", async () => {
    server.push({ hang: true, text: ["thinking "] });
    const started = Date.now();
    const signal = AbortSignal.timeout(200);
    const { result, parts, thrown } = await run({ abortSignal: signal });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(thrown).toBeUndefined();
    expect(types(parts)).toEqual(["start", "start-step", "text-start", "text-delta", "abort"]);
    // The result promises reject with the signal's own reason (here a TimeoutError).
    await expect(result.finishReason).rejects.toBe(signal.reason);
  });

  it("hang without content: no headers ever arrive; abort ends the call", async () => {
    server.push({ hang: true });
    const { parts } = await run({ abortSignal: AbortSignal.timeout(150) });
    expect(types(parts)).toEqual(["start", "abort"]);
  });

  it("close() ends hung requests instead of waiting for them", async () => {
    server.push({ hang: true });
    const pending = run({});
    // Wait until the server has the request, then close with it still open.
    for (let i = 0; i < 100 && server.chatRequests().length === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1000);
    const { errors } = await pending;
    expect(APICallError.isInstance(errors[0])).toBe(true);
    // A socket closed before any response headers: the SDK reports a retryable connection failure.
    expect((errors[0] as APICallError).message).toBe("Cannot connect to API: other side closed");
    expect((errors[0] as APICallError).isRetryable).toBe(true);
  });

  it("answers a loud 500 when the reply queue is empty", async () => {
    const { errors } = await run({ prompt: "is anyone there?" });
    const error = errors[0] as APICallError;
    expect(error.statusCode).toBe(500);
    expect(error.message).toBe(
      'fake OpenAI server: no reply left for chat request #1; last user message: "is anyone there?"',
    );
  });

  it("rejects a wrong API key with OpenAI's 401 without consuming a reply or echoing the key", async () => {
    server.push({ text: "not for you" });
    const { errors } = await run({ apiKey: "sk-wrong" });
    const error = errors[0] as APICallError;
    expect(error.statusCode).toBe(401);
    expect(error.isRetryable).toBe(false);
    expect(error.message).toBe("Incorrect API key provided");
    expect(error.responseBody).not.toContain("sk-wrong");
    expect(server.remaining()).toBe(1);
  });
});

describe("fake OpenAI server without streaming (generateText)", () => {
  it("returns one chat.completion with text, reasoning, tool calls and usage", async () => {
    server.push({
      reasoning: "think",
      text: "calling",
      toolCalls: [{ name: "read_file", input: { path: "x" } }],
      usage: { inputTokens: 8, outputTokens: 2 },
    });
    const result = await generateText({ model: model(), tools, prompt: "x", maxRetries: 0 });
    expect(result.text).toBe("calling");
    expect(result.reasoningText).toBe("think");
    expect(result.finishReason).toBe("tool-calls");
    expect(result.toolCalls.map((c) => [c.toolCallId, c.input])).toEqual([["call_1_0", { path: "x" }]]);
    expect(result.usage.totalTokens).toBe(10);
    expect(server.chatRequests()[0]?.body).not.toHaveProperty("stream", true);
  });

  it("a clean non-streaming answer with finish_reason null reports finish reason 'other'", async () => {
    server.push({ cutBeforeFinish: true, endCleanly: true, text: "x" });
    const result = await generateText({ model: model(), prompt: "x", maxRetries: 0 });
    expect(result.text).toBe("x");
    expect(result.finishReason).toBe("other");
  });

  it("a cut non-streaming response fails the call", async () => {
    server.push({ cutBeforeFinish: true, text: "x" });
    await expect(generateText({ model: model(), prompt: "x", maxRetries: 0 })).rejects.toBeInstanceOf(Error);
  });
});
