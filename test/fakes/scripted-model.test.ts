/**
 * Self-tests of ScriptedModel through the real AI SDK (`streamText`/`generateText` from `ai`), so the
 * fake is known to speak LanguageModelV3 the way the SDK expects, including its failure shapes.
 */
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
import { describe, expect, it } from "vitest";
import { ScriptedModel } from "./scripted-model.js";

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

interface Collected {
  parts: TextStreamPart<ToolSet>[];
  thrown: unknown;
}

async function collect(stream: AsyncIterable<TextStreamPart<ToolSet>>): Promise<Collected> {
  const parts: TextStreamPart<ToolSet>[] = [];
  try {
    for await (const part of stream) parts.push(part);
  } catch (error) {
    return { parts, thrown: error };
  }
  return { parts, thrown: undefined };
}

/** Records streamText's onError reports (the SDK logs them to stderr otherwise) so tests can assert them. */
function recordErrors(): { errors: unknown[]; onError: (event: { error: unknown }) => void } {
  const errors: unknown[] = [];
  return {
    errors,
    onError: ({ error }) => {
      errors.push(error);
    },
  };
}

function types(parts: TextStreamPart<ToolSet>[]): string[] {
  return parts.map((p) => p.type);
}

function errorParts(parts: TextStreamPart<ToolSet>[]): unknown[] {
  return parts.flatMap((p) => (p.type === "error" ? [p.error] : []));
}

describe("ScriptedModel through streamText", () => {
  it("streams a string reply as several text deltas, with reasoning, usage and the request recorded", async () => {
    const model = new ScriptedModel([
      {
        reasoning: "The user greets me.",
        text: "Hello there, how are you?",
        usage: { inputTokens: 42, outputTokens: 17, reasoningTokens: 4, cachedInputTokens: 40 },
      },
    ]);
    const result = streamText({ model, prompt: "hello", maxOutputTokens: 123, temperature: 0.5 });
    const { parts, thrown } = await collect(result.fullStream);

    expect(thrown).toBeUndefined();
    const deltas = parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : []));
    expect(deltas).toEqual(["Hello ", "there, ", "how ", "are ", "you?"]);
    expect(await result.text).toBe("Hello there, how are you?");
    expect(await result.reasoningText).toBe("The user greets me.");
    expect(await result.finishReason).toBe("stop");
    const usage = await result.totalUsage;
    expect(usage.inputTokens).toBe(42);
    expect(usage.outputTokens).toBe(17);
    expect(usage.outputTokenDetails.reasoningTokens).toBe(4);
    expect(usage.inputTokenDetails.cacheReadTokens).toBe(40);

    expect(model.requests).toHaveLength(1);
    const seen = model.requests[0];
    expect(seen?.method).toBe("doStream");
    expect(seen?.maxOutputTokens).toBe(123);
    expect(seen?.temperature).toBe(0.5);
    expect(seen?.prompt).toEqual([{ role: "user", content: [{ type: "text", text: "hello" }] }]);
    expect(model.remaining).toBe(0);
  });

  it("streams an array reply as exactly those chunks", async () => {
    const model = new ScriptedModel([{ text: ["a", "b", "c"] }]);
    const { parts } = await collect(streamText({ model, prompt: "x" }).fullStream);
    expect(parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : []))).toEqual(["a", "b", "c"]);
  });

  it("round-trips a tool call: the call comes back without execute, and the result is seen next request", async () => {
    const model = new ScriptedModel([
      { text: "Let me look.", toolCalls: [{ id: "call_1", name: "read_file", input: { path: "notes.md" } }] },
      { text: "The file says hi." },
    ]);
    const first = streamText({ model, tools, toolChoice: "auto", prompt: "what is in notes.md?" });
    const { parts, thrown } = await collect(first.fullStream);
    expect(thrown).toBeUndefined();
    expect(types(parts)).toContain("tool-input-delta");
    expect(await first.finishReason).toBe("tool-calls");
    const calls = await first.toolCalls;
    expect(calls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ["call_1", "read_file", { path: "notes.md" }],
    ]);
    expect(model.requests[0]?.toolChoice).toEqual({ type: "auto" });
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(["read_file"]);

    const messages: ModelMessage[] = [
      { role: "user", content: "what is in notes.md?" },
      ...(await first.response).messages,
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_1",
            toolName: "read_file",
            output: { type: "text", value: "hi" },
          },
        ],
      },
    ];
    const second = streamText({ model, tools, messages });
    expect(await second.text).toBe("The file says hi.");
    const prompt = model.requests[1]?.prompt ?? [];
    expect(prompt.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(prompt[2]?.content).toEqual([
      expect.objectContaining({
        type: "tool-result",
        toolCallId: "call_1",
        output: { type: "text", value: "hi" },
      }),
    ]);
  });

  it("reports each scripted finish reason as the SDK's unified reason", async () => {
    const reasons = ["stop", "length", "content-filter", "other"] as const;
    const model = new ScriptedModel(reasons.map((finishReason) => ({ text: "x", finishReason })));
    const seen: string[] = [];
    for (const _ of reasons) seen.push(await streamText({ model, prompt: "x" }).finishReason);
    expect(seen).toEqual([...reasons]);
  });

  it("surfaces a 500 as an APICallError error part with statusCode 500, retryable", async () => {
    const model = new ScriptedModel([{ error: { status: 500, message: "upstream exploded" } }]);
    const reported = recordErrors();
    const { parts, thrown } = await collect(
      streamText({ model, prompt: "x", maxRetries: 0, onError: reported.onError }).fullStream,
    );
    expect(thrown).toBeUndefined();
    const [error] = errorParts(parts);
    expect(reported.errors).toEqual([error]);
    expect(APICallError.isInstance(error)).toBe(true);
    const apiError = error as APICallError;
    expect(apiError.statusCode).toBe(500);
    expect(apiError.isRetryable).toBe(true);
    expect(apiError.message).toBe("upstream exploded");
    expect(types(parts)).not.toContain("finish");
  });

  it("makes a 429's Retry-After visible to the caller, and a 401 not retryable", async () => {
    const model = new ScriptedModel([
      { error: { status: 429, message: "rate limited", retryAfterSeconds: 7 } },
      { error: { status: 401, message: "invalid API key" } },
    ]);
    let caught: unknown;
    await collect(
      streamText({
        model,
        prompt: "x",
        maxRetries: 0,
        onError: ({ error }) => {
          caught = error;
        },
      }).fullStream,
    );
    expect(APICallError.isInstance(caught)).toBe(true);
    expect((caught as APICallError).statusCode).toBe(429);
    expect((caught as APICallError).isRetryable).toBe(true);
    expect((caught as APICallError).responseHeaders?.["retry-after"]).toBe("7");

    const reported = recordErrors();
    const { parts } = await collect(
      streamText({ model, prompt: "x", maxRetries: 0, onError: reported.onError }).fullStream,
    );
    const [unauthorized] = errorParts(parts);
    expect((unauthorized as APICallError).statusCode).toBe(401);
    expect((unauthorized as APICallError).isRetryable).toBe(false);
  });

  it("lets the SDK's own retry honour Retry-After: a 503 then an answer", async () => {
    const model = new ScriptedModel([
      { error: { status: 503, message: "overloaded", retryAfterSeconds: 0 } },
      { text: "back again" },
    ]);
    const result = streamText({ model, prompt: "x", maxRetries: 1 });
    expect(await result.text).toBe("back again");
    expect(model.requests).toHaveLength(2);
  });

  it("cut before finish: deltas arrive, then iteration throws the adapter's APICallError, no finish part", async () => {
    const model = new ScriptedModel([{ cutBeforeFinish: true, text: ["half ", "an "] }]);
    const result = streamText({ model, prompt: "x", maxRetries: 0 });
    const { parts, thrown } = await collect(result.fullStream);
    expect(parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : []))).toEqual(["half ", "an "]);
    expect(types(parts)).not.toContain("finish");
    expect(types(parts)).not.toContain("text-end");
    expect(APICallError.isInstance(thrown)).toBe(true);
    const cut = thrown as APICallError;
    expect(cut.message).toBe("Failed to process successful response");
    expect(cut.statusCode).toBe(200);
    expect(cut.isRetryable).toBe(true);
    expect((cut.cause as Error).message).toBe("terminated");
    await expect(result.finishReason).rejects.toBe(thrown);
  });

  it("a clean end without finish reason: an error part, then finish reason 'error', as the adapter does", async () => {
    const model = new ScriptedModel([{ cutBeforeFinish: true, endCleanly: true, text: ["half ", "an "] }]);
    const reported = recordErrors();
    const result = streamText({ model, prompt: "x", onError: reported.onError });
    const { parts, thrown } = await collect(result.fullStream);
    expect(thrown).toBeUndefined();
    expect(reported.errors).toHaveLength(1);
    expect((reported.errors[0] as Error).message).toBe("Response stream ended without a finish reason.");
    expect(types(parts).slice(-4)).toEqual(["text-end", "error", "finish-step", "finish"]);
    expect(await result.finishReason).toBe("error");
    expect((await result.totalUsage).totalTokens).toBeUndefined();
  });

  it("hang with content: streams the deltas, then stalls until the AbortSignal fires", async () => {
    const model = new ScriptedModel([{ hang: true, text: ["thinking "] }]);
    const controller = new AbortController();
    const started = Date.now();
    const result = streamText({ model, prompt: "x", abortSignal: controller.signal });
    setTimeout(() => controller.abort(), 150);
    const { parts, thrown } = await collect(result.fullStream);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(thrown).toBeUndefined();
    expect(types(parts)).toEqual(["start", "start-step", "text-start", "text-delta", "abort"]);
    await expect(result.finishReason).rejects.toMatchObject({ name: "AbortError" });
  });

  it("hang without content: the call never returns until the AbortSignal fires", async () => {
    const model = new ScriptedModel([{ hang: true }]);
    const result = streamText({ model, prompt: "x", abortSignal: AbortSignal.timeout(100) });
    const { parts } = await collect(result.fullStream);
    expect(types(parts)).toEqual(["start", "abort"]);
  });

  it("aborts in the middle of a slow stream (chunkDelayMs)", async () => {
    const model = new ScriptedModel([{ text: ["a", "b", "c", "d", "e", "f"], chunkDelayMs: 30 }]);
    const controller = new AbortController();
    const result = streamText({ model, prompt: "x", abortSignal: controller.signal });
    const seen: string[] = [];
    for await (const part of result.fullStream) {
      seen.push(part.type);
      // Abort on the second delta: deterministic, whatever the machine's load.
      if (seen.filter((t) => t === "text-delta").length === 2) controller.abort();
    }
    expect(seen.filter((t) => t === "text-delta")).toHaveLength(2);
    expect(seen.at(-1)).toBe("abort");
  });

  it("refuses a hang without an AbortSignal, loudly, instead of hanging the test", async () => {
    const model = new ScriptedModel([{ hang: true }]);
    const reported = recordErrors();
    const { parts } = await collect(
      streamText({ model, prompt: "x", maxRetries: 0, onError: reported.onError }).fullStream,
    );
    expect(reported.errors).toHaveLength(1);
    expect(String(errorParts(parts)[0])).toContain("scripted to hang but the call has no abortSignal");
  });

  it("fails loudly when the queue is empty, naming the request and the last user message", async () => {
    const model = new ScriptedModel([{ text: "only one" }]);
    expect(await streamText({ model, prompt: "first" }).text).toBe("only one");
    const reported = recordErrors();
    const { parts } = await collect(
      streamText({ model, prompt: "second   question\nwith lines", maxRetries: 0, onError: reported.onError })
        .fullStream,
    );
    expect(reported.errors).toHaveLength(1);
    expect(String(errorParts(parts)[0])).toBe(
      'Error: scripted model: no reply left for request #2; last user message: "second question with lines"',
    );
    expect(model.requests[1]?.reply).toBeUndefined();
  });

  it("passes malformed scripted tool arguments through, so the SDK reports an invalid tool call", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "read_file", rawArguments: '{"path": ' }] }]);
    const result = streamText({ model, tools, prompt: "x" });
    const { parts } = await collect(result.fullStream);
    const call = parts.find((p) => p.type === "tool-call");
    expect(call).toMatchObject({ type: "tool-call", toolName: "read_file", invalid: true });
  });
});

describe("ScriptedModel through generateText (doGenerate)", () => {
  it("returns text, reasoning, tool calls and usage in one response", async () => {
    const model = new ScriptedModel([
      {
        reasoning: ["a ", "b"],
        text: "calling",
        toolCalls: [{ name: "read_file", input: { path: "x" } }],
        usage: { inputTokens: 3, outputTokens: 4 },
      },
    ]);
    const result = await generateText({ model, tools, prompt: "x" });
    expect(result.text).toBe("calling");
    expect(result.reasoningText).toBe("a b");
    expect(result.finishReason).toBe("tool-calls");
    expect(result.toolCalls.map((c) => [c.toolCallId, c.input])).toEqual([["call_1_0", { path: "x" }]]);
    expect(result.usage.totalTokens).toBe(7);
    expect(model.requests[0]?.method).toBe("doGenerate");
  });

  it("throws the scripted APICallError and the cut error", async () => {
    const model = new ScriptedModel([
      { error: { status: 502, message: "bad gateway" } },
      { cutBeforeFinish: true, text: "x" },
    ]);
    await expect(generateText({ model, prompt: "x", maxRetries: 0 })).rejects.toMatchObject({
      statusCode: 502,
      message: "bad gateway",
    });
    await expect(generateText({ model, prompt: "x", maxRetries: 0 })).rejects.toMatchObject({
      message: "Failed to process successful response",
    });
  });

  it("a clean end without finish reason answers with finish reason 'other'", async () => {
    const model = new ScriptedModel([{ cutBeforeFinish: true, endCleanly: true, text: "x" }]);
    const result = await generateText({ model, prompt: "x" });
    expect([result.text, result.finishReason]).toEqual(["x", "other"]);
  });

  it("hangs until aborted", async () => {
    const model = new ScriptedModel([{ hang: true }]);
    await expect(
      generateText({ model, prompt: "x", abortSignal: AbortSignal.timeout(80) }),
    ).rejects.toMatchObject({ name: "TimeoutError" });
  });
});
