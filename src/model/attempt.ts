import { jsonSchema, type ModelMessage, streamText, type ToolSet, tool } from "ai";
import { z } from "zod";
import type { AnyTool } from "../tools/types.js";
import { type ClassifiedError, classifyModelError } from "./errors.js";
import type {
  LanguageModel,
  StepFinishReason,
  StepRequest,
  StepStreamCallbacks,
  ToolCallRequest,
} from "./types.js";

export interface AttemptSuccess {
  ok: true;
  finishReason: StepFinishReason;
  text: string;
  reasoning: string;
  toolCalls: ToolCallRequest[];
  responseMessages: ModelMessage[];
  usage: { inputTokens: number; outputTokens: number; estimated: boolean };
}

export interface AttemptFailure {
  ok: false;
  error: ClassifiedError;
  /** The user (or a safety stop) aborted: not the provider's fault, do not retry or fall back. */
  aborted: boolean;
  /** The stream ended without a finish reason after some output. */
  interrupted: boolean;
  partialText: string;
  usage: { inputTokens: number; outputTokens: number; estimated: boolean };
}

export type AttemptResult = AttemptSuccess | AttemptFailure;

/**
 * Each tool's input as JSON Schema, converted once per tool definition: the conversion walks the
 * whole zod schema, and every step of a task sends the same tools.
 */
const inputJsonSchemas = new WeakMap<AnyTool, JsonSchemaOfTool>();
type JsonSchemaOfTool = Parameters<typeof jsonSchema>[0];

function toToolSet(tools: AnyTool[]): ToolSet {
  const set: ToolSet = {};
  for (const definition of tools) {
    let schema = inputJsonSchemas.get(definition);
    if (!schema) {
      schema = z.toJSONSchema(definition.inputSchema, { io: "input" });
      inputJsonSchemas.set(definition, schema);
    }
    set[definition.name] = tool({ description: definition.description, inputSchema: jsonSchema(schema) });
  }
  return set;
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * One streamed call to one provider. Never throws: every failure comes back as data, classified.
 * `idleTimeoutMs` aborts a stream that stops sending anything (a hung provider), as a retryable timeout.
 */
export async function runAttempt(
  model: LanguageModel,
  request: StepRequest,
  signal: AbortSignal,
  idleTimeoutMs: number,
  callbacks: StepStreamCallbacks = {},
): Promise<AttemptResult> {
  const controller = new AbortController();
  let idleTimedOut = false;
  let idleTimer: NodeJS.Timeout | undefined;
  const resetIdle = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleTimedOut = true;
      controller.abort(new Error(`no data from the provider for ${idleTimeoutMs} ms`));
    }, idleTimeoutMs);
  };
  const onOuterAbort = () => controller.abort(signal.reason);
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", onOuterAbort, { once: true });

  let text = "";
  let reasoning = "";
  const toolCalls: ToolCallRequest[] = [];
  let finishReason: StepFinishReason = "none";
  let streamError: unknown = null;
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  const promptChars = request.system.length + JSON.stringify(request.messages).length;

  try {
    resetIdle();
    const result = streamText({
      model,
      system: request.system,
      messages: request.messages,
      tools: toToolSet(request.tools),
      ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}),
      ...(request.activeToolNames ? { activeTools: request.activeToolNames } : {}),
      maxOutputTokens: request.maxOutputTokens,
      maxRetries: 0,
      abortSignal: controller.signal,
      // Errors arrive as stream parts below; this hook only stops the SDK from printing them itself.
      onError: ({ error }) => {
        streamError ??= error;
      },
    });
    for await (const part of result.fullStream) {
      resetIdle();
      switch (part.type) {
        case "text-delta":
          text += part.text;
          callbacks.onTextDelta?.(part.text);
          break;
        case "reasoning-delta":
          reasoning += part.text;
          callbacks.onReasoningDelta?.(part.text);
          break;
        case "tool-call":
          toolCalls.push({ callId: part.toolCallId, toolName: part.toolName, input: part.input });
          break;
        case "finish-step":
          finishReason = part.finishReason;
          inputTokens = part.usage.inputTokens;
          outputTokens = part.usage.outputTokens;
          break;
        case "error":
          streamError ??= part.error;
          break;
        case "abort":
          streamError ??= controller.signal.reason ?? new Error("aborted");
          break;
        default:
          break;
      }
    }
    if (streamError === null && finishReason !== "error" && finishReason !== "other") {
      const response = await result.response;
      return {
        ok: true,
        finishReason,
        text,
        reasoning,
        toolCalls,
        responseMessages: response.messages,
        usage: {
          inputTokens:
            inputTokens ?? estimateTokens(request.system) + estimateTokens(JSON.stringify(request.messages)),
          outputTokens: outputTokens ?? estimateTokens(text + reasoning),
          estimated: inputTokens === undefined || outputTokens === undefined,
        },
      };
    }
  } catch (error) {
    streamError ??= error;
  } finally {
    if (idleTimer) clearTimeout(idleTimer);
    signal.removeEventListener("abort", onOuterAbort);
  }

  const aborted = signal.aborted;
  const classified: ClassifiedError = idleTimedOut
    ? { status: null, retryable: true, retryAfterMs: null, cause: `timeout: no data for ${idleTimeoutMs} ms` }
    : streamError !== null
      ? classifyModelError(streamError)
      : {
          status: null,
          retryable: true,
          retryAfterMs: null,
          cause: `stream ended without a finish reason (${finishReason})`,
        };
  const producedOutput = text.length + reasoning.length > 0 || toolCalls.length > 0;
  // A stream that delivered output and then died was billed by the provider; count an estimate.
  return {
    ok: false,
    error: aborted ? { ...classified, retryable: false, cause: "aborted" } : classified,
    aborted,
    interrupted: !aborted && (streamError === null || producedOutput),
    partialText: text,
    usage: producedOutput
      ? {
          inputTokens: inputTokens ?? Math.ceil(promptChars / 4),
          outputTokens: outputTokens ?? estimateTokens(text + reasoning),
          estimated: true,
        }
      : { inputTokens: 0, outputTokens: 0, estimated: true },
  };
}
