/**
 * ScriptedModel: an in-process LanguageModelV3 (AI SDK v6 provider spec) driven by a queue of
 * ScriptedReply (see ./script.ts). Use it wherever src/model/ accepts a LanguageModelV3:
 *
 *   const model = new ScriptedModel([{ text: "Hi there" }, { toolCalls: [{ name: "t", input: {} }] }]);
 *   const result = streamText({ model, prompt: "hello" });
 *   model.requests[0].prompt      // what the model saw (LanguageModelV3Prompt), plus tools, toolChoice…
 *   model.push({ text: "more" })  // queue more replies at any time
 *
 * Behaviour per reply kind (doStream; doGenerate mirrors it without deltas):
 *   - answer: stream-start, response-metadata, reasoning-*, text-*, tool-input-* + tool-call, finish.
 *   - error: doStream rejects with an APICallError (statusCode, isRetryable as the SDK computes it,
 *     responseHeaders["retry-after"], an OpenAI-style responseBody), as a real HTTP failure does.
 *   - hang: without content doStream never resolves; with content the stream stalls after it. Either
 *     way it ends with the abort reason when options.abortSignal fires. A hang with no abortSignal is
 *     refused loudly, because it could only end in a test timeout.
 *   - cutBeforeFinish: streams the content, then the stream errors (no finish part, open text block not
 *     closed) with the APICallError the real adapter raises on a dropped socket: "Failed to process
 *     successful response", statusCode 200, isRetryable true, cause TypeError("terminated").
 *     With endCleanly: an error part (InvalidResponseDataError "Response stream ended without a finish
 *     reason.") then a finish part with finishReason "error" and unknown usage, as the adapter emits.
 *   - empty queue: doStream/doGenerate reject with "scripted model: no reply left for request #N; last
 *     user message: …".
 */
import {
  APICallError,
  InvalidResponseDataError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Content,
  type LanguageModelV3FinishReason,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3Prompt,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
  type LanguageModelV3Usage,
} from "@ai-sdk/provider";
import {
  DEFAULT_USAGE,
  describeLastUserMessage,
  finishReasonOf,
  isCutReply,
  isErrorReply,
  isHangReply,
  RAW_FINISH_REASON,
  type ScriptedContent,
  type ScriptedError,
  type ScriptedFinishReason,
  type ScriptedReply,
  type ScriptedUsage,
  toChunks,
  toolArguments,
  toolCallId,
} from "./script.js";

export interface RecordedModelCall {
  /** 1-based request number, counting both doStream and doGenerate calls. */
  number: number;
  method: "doStream" | "doGenerate";
  prompt: LanguageModelV3Prompt;
  tools: LanguageModelV3CallOptions["tools"];
  toolChoice: LanguageModelV3CallOptions["toolChoice"];
  maxOutputTokens: number | undefined;
  temperature: number | undefined;
  providerOptions: LanguageModelV3CallOptions["providerOptions"];
  headers: LanguageModelV3CallOptions["headers"];
  /** The script entry this call consumed; undefined when the queue was empty. */
  reply: ScriptedReply | undefined;
}

export interface ScriptedModelOptions {
  provider?: string;
  modelId?: string;
}

const FAKE_URL = "scripted://model/chat/completions";

export class ScriptedModel implements LanguageModelV3 {
  readonly specificationVersion = "v3";
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  readonly requests: RecordedModelCall[] = [];
  private readonly queue: ScriptedReply[];

  constructor(replies: ScriptedReply[] = [], options: ScriptedModelOptions = {}) {
    this.queue = [...replies];
    this.provider = options.provider ?? "scripted";
    this.modelId = options.modelId ?? "scripted-model";
  }

  push(...replies: ScriptedReply[]): void {
    this.queue.push(...replies);
  }

  /** Replies not consumed yet; a test that scripted exactly its conversation can assert this is 0. */
  get remaining(): number {
    return this.queue.length;
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const { number, reply } = this.take("doStream", options);
    if (isErrorReply(reply)) throw toApiCallError(reply, options);
    const signal = options.abortSignal;
    if (isHangReply(reply) && signal === undefined) throw hangWithoutSignal(number);
    signal?.throwIfAborted();
    const content = contentParts(reply, number);
    if (isHangReply(reply) && content.length === 0) {
      // Like a server that accepted the request but never sent headers: the call itself never returns.
      await waitForAbort(signal);
    }
    // A real stream that stalls or drops never closes its open text/reasoning block.
    const last = content.at(-1);
    if (
      (isHangReply(reply) || (isCutReply(reply) && reply.endCleanly !== true)) &&
      (last?.type === "text-end" || last?.type === "reasoning-end")
    ) {
      content.pop();
    }
    const parts: LanguageModelV3StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "response-metadata", id: `scripted-${number}`, modelId: this.modelId, timestamp: new Date(0) },
      ...content,
    ];
    let ending: StreamEnding;
    if (isHangReply(reply)) ending = { kind: "hang" };
    else if (isCutReply(reply) && reply.endCleanly === true)
      ending = { kind: "finish", part: noFinishReasonPart() };
    else if (isCutReply(reply)) ending = { kind: "cut", error: connectionCutError(options) };
    else {
      const reason = finishReasonOf(reply);
      ending = {
        kind: "finish",
        part: { type: "finish", finishReason: toFinishReason(reason), usage: toUsage(reply.usage) },
      };
    }
    return {
      stream: partStream(parts, ending, reply.chunkDelayMs ?? 0, signal),
      request: { body: { prompt: options.prompt } },
      response: { headers: {} },
    };
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { number, reply } = this.take("doGenerate", options);
    if (isErrorReply(reply)) throw toApiCallError(reply, options);
    const signal = options.abortSignal;
    if (isHangReply(reply)) {
      if (signal === undefined) throw hangWithoutSignal(number);
      return waitForAbort(signal);
    }
    signal?.throwIfAborted();
    if (isCutReply(reply) && reply.endCleanly !== true) throw connectionCutError(options);
    const content: LanguageModelV3Content[] = [];
    const reasoning = toChunks(reply.reasoning).join("");
    if (reasoning !== "") content.push({ type: "reasoning", text: reasoning });
    const text = toChunks(reply.text).join("");
    if (text !== "") content.push({ type: "text", text });
    for (const [index, call] of (reply.toolCalls ?? []).entries()) {
      content.push({
        type: "tool-call",
        toolCallId: toolCallId(call, number, index),
        toolName: call.name,
        input: toolArguments(call),
      });
    }
    return {
      content,
      // A JSON answer with finish_reason null maps to "other" in the real adapter.
      finishReason: isCutReply(reply)
        ? { unified: "other", raw: undefined }
        : toFinishReason(finishReasonOf(reply)),
      usage: toUsage(isCutReply(reply) ? undefined : reply.usage),
      request: { body: { prompt: options.prompt } },
      response: { id: `scripted-${number}`, modelId: this.modelId, timestamp: new Date(0), headers: {} },
      warnings: [],
    };
  }

  private take(
    method: RecordedModelCall["method"],
    options: LanguageModelV3CallOptions,
  ): { number: number; reply: ScriptedReply } {
    const number = this.requests.length + 1;
    const reply = this.queue.shift();
    this.requests.push({
      number,
      method,
      prompt: options.prompt,
      tools: options.tools,
      toolChoice: options.toolChoice,
      maxOutputTokens: options.maxOutputTokens,
      temperature: options.temperature,
      providerOptions: options.providerOptions,
      headers: options.headers,
      reply,
    });
    if (reply === undefined) {
      throw new Error(
        `scripted model: no reply left for request #${number}; last user message: ${describeLastUserMessage(
          lastUserText(options.prompt),
        )}`,
      );
    }
    return { number, reply };
  }
}

type StreamEnding =
  | { kind: "finish"; part: LanguageModelV3StreamPart }
  | { kind: "hang" }
  | { kind: "cut"; error: APICallError };

function contentParts(reply: ScriptedContent, requestNumber: number): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [];
  const reasoning = toChunks(reply.reasoning);
  if (reasoning.length > 0) {
    parts.push({ type: "reasoning-start", id: "reasoning-0" });
    for (const delta of reasoning) parts.push({ type: "reasoning-delta", id: "reasoning-0", delta });
    parts.push({ type: "reasoning-end", id: "reasoning-0" });
  }
  const text = toChunks(reply.text);
  if (text.length > 0) {
    parts.push({ type: "text-start", id: "text-0" });
    for (const delta of text) parts.push({ type: "text-delta", id: "text-0", delta });
    parts.push({ type: "text-end", id: "text-0" });
  }
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const id = toolCallId(call, requestNumber, index);
    const args = toolArguments(call);
    parts.push({ type: "tool-input-start", id, toolName: call.name });
    for (const delta of splitInHalves(args)) parts.push({ type: "tool-input-delta", id, delta });
    parts.push({ type: "tool-input-end", id });
    parts.push({ type: "tool-call", toolCallId: id, toolName: call.name, input: args });
  }
  return parts;
}

/** Arguments arrive in pieces from real providers; two pieces are enough to exercise reassembly. */
function splitInHalves(value: string): string[] {
  if (value.length < 2) return [value];
  const middle = Math.floor(value.length / 2);
  return [value.slice(0, middle), value.slice(middle)];
}

function partStream(
  parts: LanguageModelV3StreamPart[],
  ending: StreamEnding,
  delayMs: number,
  signal: AbortSignal | undefined,
): ReadableStream<LanguageModelV3StreamPart> {
  let index = 0;
  return new ReadableStream<LanguageModelV3StreamPart>({
    async pull(controller) {
      try {
        signal?.throwIfAborted();
        if (index > 1 && delayMs > 0) await sleep(delayMs, signal);
        const part = parts[index];
        index += 1;
        if (part !== undefined) {
          controller.enqueue(part);
          return;
        }
        if (ending.kind === "finish") {
          if (ending.part.type === "finish" && ending.part.finishReason.unified === "error") {
            controller.enqueue({ type: "error", error: noFinishReasonError() });
          }
          controller.enqueue(ending.part);
          controller.close();
        } else if (ending.kind === "cut") {
          controller.error(ending.error);
        } else {
          await waitForAbort(signal);
        }
      } catch (error) {
        controller.error(error);
      }
    },
  });
}

function toFinishReason(reason: ScriptedFinishReason): LanguageModelV3FinishReason {
  return { unified: reason, raw: RAW_FINISH_REASON[reason] };
}

function toUsage(usage: ScriptedUsage | undefined): LanguageModelV3Usage {
  const u = usage ?? DEFAULT_USAGE;
  const cached = u.cachedInputTokens ?? 0;
  const reasoning = u.reasoningTokens ?? 0;
  return {
    inputTokens: { total: u.inputTokens, noCache: u.inputTokens - cached, cacheRead: cached, cacheWrite: 0 },
    outputTokens: { total: u.outputTokens, text: u.outputTokens - reasoning, reasoning },
  };
}

function toApiCallError(reply: ScriptedError, options: LanguageModelV3CallOptions): APICallError {
  const { status, message, type, code, retryAfterSeconds } = reply.error;
  const responseHeaders: Record<string, string> = { "content-type": "application/json" };
  if (retryAfterSeconds !== undefined) responseHeaders["retry-after"] = String(retryAfterSeconds);
  return new APICallError({
    message,
    url: FAKE_URL,
    requestBodyValues: { prompt: options.prompt },
    statusCode: status,
    responseHeaders,
    responseBody: JSON.stringify({ error: { message, type: type ?? null, code: code ?? null } }),
    // isRetryable left to APICallError's own rule (408, 409, 429, 5xx), the one real providers get.
  });
}

/**
 * Exactly what @ai-sdk/openai-compatible raises when the socket drops mid-body (observed against
 * openai-server.ts): an APICallError with the 200 status already received, retryable, caused by
 * undici's TypeError("terminated") whose cause has code UND_ERR_SOCKET.
 */
function connectionCutError(options: LanguageModelV3CallOptions): APICallError {
  const socketError = Object.assign(new Error("other side closed (scripted connection cut)"), {
    code: "UND_ERR_SOCKET",
  });
  return new APICallError({
    message: "Failed to process successful response",
    url: FAKE_URL,
    requestBodyValues: { prompt: options.prompt },
    statusCode: 200,
    responseHeaders: { "content-type": "text/event-stream" },
    cause: new TypeError("terminated", { cause: socketError }),
    isRetryable: true,
  });
}

/** What @ai-sdk/openai-compatible reports when a stream ends cleanly without any finish_reason. */
function noFinishReasonError(): InvalidResponseDataError {
  return new InvalidResponseDataError({
    data: undefined,
    message: "Response stream ended without a finish reason.",
  });
}

function noFinishReasonPart(): LanguageModelV3StreamPart {
  return {
    type: "finish",
    finishReason: { unified: "error", raw: undefined },
    usage: {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    },
  };
}

function hangWithoutSignal(number: number): Error {
  return new Error(
    `scripted model: request #${number} is scripted to hang but the call has no abortSignal, so it could never end; pass an abortSignal`,
  );
}

function waitForAbort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    if (signal === undefined) return; // Callers refuse hangs without a signal before getting here.
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function lastUserText(prompt: LanguageModelV3Prompt): string | undefined {
  for (let i = prompt.length - 1; i >= 0; i -= 1) {
    const message = prompt[i];
    if (message?.role !== "user") continue;
    return message.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join(" ");
  }
  return undefined;
}
