/**
 * The OpenAI chat-completions wire shapes the fake server (./openai-server.ts) sends: SSE deltas, the
 * non-streaming completion, usage, and OpenAI error bodies. Kept apart so the server file holds only
 * routing and timing.
 */
import type { ServerResponse } from "node:http";
import {
  DEFAULT_USAGE,
  finishReasonOf,
  RAW_FINISH_REASON,
  type ScriptedAnswer,
  type ScriptedContent,
  type ScriptedError,
  type ScriptedUsage,
  toChunks,
  toolArguments,
  toolCallId,
} from "./script.js";

export function contentDeltas(
  reply: ScriptedContent,
  requestNumber: number,
  chunk: (delta: Record<string, unknown>) => object,
): object[] {
  const events: object[] = [];
  for (const piece of toChunks(reply.reasoning)) events.push(chunk({ reasoning_content: piece }));
  for (const piece of toChunks(reply.text)) events.push(chunk({ content: piece }));
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const args = toolArguments(call);
    const middle = Math.floor(args.length / 2);
    events.push(
      chunk({
        tool_calls: [
          {
            index,
            id: toolCallId(call, requestNumber, index),
            type: "function",
            function: { name: call.name, arguments: "" },
          },
        ],
      }),
    );
    for (const piece of [args.slice(0, middle), args.slice(middle)]) {
      if (piece !== "") events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  }
  return events;
}

export function completion(
  id: string,
  model: string,
  reply: ScriptedAnswer,
  requestNumber: number,
): { choices: Record<string, unknown>[] } & Record<string, unknown> {
  const text = toChunks(reply.text).join("");
  const reasoning = toChunks(reply.reasoning).join("");
  const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
    id: toolCallId(call, requestNumber, index),
    type: "function",
    function: { name: call.name, arguments: toolArguments(call) },
  }));
  return {
    id,
    object: "chat.completion",
    created: 0,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text === "" && toolCalls.length > 0 ? null : text,
          ...(reasoning === "" ? {} : { reasoning_content: reasoning }),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: RAW_FINISH_REASON[finishReasonOf(reply)],
      },
    ],
    usage: usageJson(reply.usage),
  };
}

export function usageJson(usage: ScriptedUsage | undefined): object {
  const u = usage ?? DEFAULT_USAGE;
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedInputTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
  };
}

const DEFAULT_ERROR_TYPE: Record<number, [type: string, code: string | null]> = {
  400: ["invalid_request_error", null],
  401: ["invalid_request_error", "invalid_api_key"],
  403: ["permission_error", null],
  404: ["invalid_request_error", "model_not_found"],
  429: ["rate_limit_error", "rate_limit_exceeded"],
};

export function sendScriptedError(res: ServerResponse, reply: ScriptedError): void {
  const { status, message, retryAfterSeconds } = reply.error;
  const [defaultType, defaultCode] = DEFAULT_ERROR_TYPE[status] ?? ["server_error", null];
  const headers: Record<string, string> =
    retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) };
  sendError(res, status, message, reply.error.type ?? defaultType, reply.error.code ?? defaultCode, headers);
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type = "server_error",
  code: string | null = null,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { message, type, param: null, code } }, headers);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}
