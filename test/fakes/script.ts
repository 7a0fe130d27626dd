/**
 * The reply-script format shared by both model fakes:
 *   - ScriptedModel (test/fakes/scripted-model.ts): an in-process LanguageModelV3.
 *   - startFakeOpenAIServer (test/fakes/openai-server.ts): a loopback OpenAI-compatible HTTP server.
 *
 * A test queues one ScriptedReply per model request (per agent step, per retry attempt). Each request
 * takes the next reply off the queue; an empty queue is a loud failure, never a made-up answer.
 *
 *   { text: "Hello there" }                          streamed as word-sized deltas, finish "stop"
 *   { text: ["Hel", "lo"] }                          streamed as exactly these deltas
 *   { reasoning: "think…", text: "answer" }          reasoning first (DeepSeek `reasoning_content`)
 *   { toolCalls: [{ name: "read_file", input: { path: "a" } }] }   finish "tool-calls"
 *   { error: { status: 429, message: "slow down", retryAfterSeconds: 2 } }
 *   { hang: true }                                   never answers until the client aborts
 *   { hang: true, text: ["par", "tial"] }            streams some deltas, then stalls
 *   { cutBeforeFinish: true, text: ["half an "] }    streams deltas, then the connection drops
 *                                                    before any finish chunk
 *   { cutBeforeFinish: true, endCleanly: true, … }   streams deltas, then `[DONE]` with no finish_reason
 *
 * Usage defaults to DEFAULT_USAGE and the finish reason to "tool-calls" when there are tool calls,
 * otherwise "stop"; set them explicitly when a test asserts on them.
 *
 * `scriptedReplySchema` validates replies that arrive as JSON (the server's control endpoint and
 * openai-server-main.ts), so a malformed script fails loudly with the path of the bad field.
 */
import { z } from "zod";

export type ScriptedFinishReason = "stop" | "length" | "tool-calls" | "content-filter" | "other";

export interface ScriptedUsage {
  inputTokens: number;
  outputTokens: number;
  /** Part of outputTokens spent on reasoning. */
  reasoningTokens?: number;
  /** Part of inputTokens served from the provider's prompt cache. */
  cachedInputTokens?: number;
}

export interface ScriptedToolCall {
  /** Defaults to `call_<request>_<index>`. */
  id?: string;
  name: string;
  /** JSON-serialised into the call's arguments. */
  input?: unknown;
  /** Sent verbatim instead of JSON.stringify(input): use it to script malformed arguments. */
  rawArguments?: string;
}

/** Text, reasoning and tool-call deltas a reply streams. A string is split into word-sized chunks. */
export interface ScriptedContent {
  text?: string | string[];
  reasoning?: string | string[];
  toolCalls?: ScriptedToolCall[];
  /** Pause between streamed parts, in milliseconds (default 0). */
  chunkDelayMs?: number;
}

export interface ScriptedAnswer extends ScriptedContent {
  finishReason?: ScriptedFinishReason;
  usage?: ScriptedUsage;
}

export interface ScriptedError {
  error: {
    status: number;
    message: string;
    /** OpenAI error `type`; defaults from the status (e.g. 429 → "rate_limit_error"). */
    type?: string;
    /** OpenAI error `code`; defaults from the status (e.g. 401 → "invalid_api_key"). */
    code?: string;
    /** Sent as the Retry-After header (seconds). */
    retryAfterSeconds?: number;
  };
}

/** Never finishes. Without content nothing is sent at all; with content the deltas stream, then it stalls. */
export interface ScriptedHang extends ScriptedContent {
  hang: true;
}

/** Streams its content, then the connection is destroyed before the finish chunk. */
export interface ScriptedCut extends ScriptedContent {
  cutBeforeFinish: true;
  /**
   * Instead of dropping the connection, end the response normally (`data: [DONE]`) without ever
   * sending a finish_reason: what a misbehaving proxy does. The SDK then reports an error part and
   * finish reason "error" rather than throwing.
   */
  endCleanly?: boolean;
}

export type ScriptedReply = ScriptedAnswer | ScriptedError | ScriptedHang | ScriptedCut;

/** The raw finish_reason an OpenAI-compatible provider sends for each unified reason. */
export const RAW_FINISH_REASON: Readonly<Record<ScriptedFinishReason, string>> = Object.freeze({
  stop: "stop",
  length: "length",
  "tool-calls": "tool_calls",
  "content-filter": "content_filter",
  other: "other",
});

export const DEFAULT_USAGE: Readonly<ScriptedUsage> = Object.freeze({ inputTokens: 10, outputTokens: 5 });

export function isErrorReply(reply: ScriptedReply): reply is ScriptedError {
  return "error" in reply;
}

export function isHangReply(reply: ScriptedReply): reply is ScriptedHang {
  return "hang" in reply && reply.hang === true;
}

export function isCutReply(reply: ScriptedReply): reply is ScriptedCut {
  return "cutBeforeFinish" in reply && reply.cutBeforeFinish === true;
}

/**
 * Splits a string into word-sized chunks that concatenate back to it exactly ("a b" → ["a ", "b"]),
 * so a plain string still streams as several deltas. An array is used as given.
 */
export function toChunks(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value;
  return value.match(/\S+\s*|\s+/g) ?? [];
}

export function finishReasonOf(reply: ScriptedAnswer): ScriptedFinishReason {
  if (reply.finishReason !== undefined) return reply.finishReason;
  return (reply.toolCalls?.length ?? 0) > 0 ? "tool-calls" : "stop";
}

export function toolCallId(call: ScriptedToolCall, requestNumber: number, index: number): string {
  return call.id ?? `call_${requestNumber}_${index}`;
}

export function toolArguments(call: ScriptedToolCall): string {
  if (call.rawArguments !== undefined) return call.rawArguments;
  return JSON.stringify(call.input ?? {});
}

/** A loud, single-line description of the prompt's last user message, for "queue empty" errors. */
export function describeLastUserMessage(text: string | undefined): string {
  if (text === undefined) return "(no user message)";
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > 200 ? `${JSON.stringify(oneLine.slice(0, 200))}…` : JSON.stringify(oneLine);
}

const chunksSchema = z.union([z.string(), z.array(z.string())]);

const contentShape = {
  text: chunksSchema.optional(),
  reasoning: chunksSchema.optional(),
  toolCalls: z
    .array(
      z.strictObject({
        id: z.string().min(1).optional(),
        name: z.string().min(1),
        input: z.unknown().optional(),
        rawArguments: z.string().optional(),
      }),
    )
    .optional(),
  chunkDelayMs: z.number().int().nonnegative().optional(),
};

const usageSchema = z.strictObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  reasoningTokens: z.number().int().nonnegative().optional(),
  cachedInputTokens: z.number().int().nonnegative().optional(),
});

export const scriptedReplySchema: z.ZodType<ScriptedReply> = z.union([
  z.strictObject({
    error: z.strictObject({
      status: z.number().int().min(400).max(599),
      message: z.string().min(1),
      type: z.string().optional(),
      code: z.string().optional(),
      retryAfterSeconds: z.number().nonnegative().optional(),
    }),
  }),
  z.strictObject({ hang: z.literal(true), ...contentShape }),
  z.strictObject({ cutBeforeFinish: z.literal(true), endCleanly: z.boolean().optional(), ...contentShape }),
  z.strictObject({
    ...contentShape,
    finishReason: z.enum(["stop", "length", "tool-calls", "content-filter", "other"]).optional(),
    usage: usageSchema.optional(),
  }),
]);

export const scriptedRepliesSchema = z.array(scriptedReplySchema);

/** Parses replies from untrusted JSON; throws an Error naming each bad field. */
export function parseScriptedReplies(value: unknown): ScriptedReply[] {
  const parsed = scriptedRepliesSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new Error(`invalid scripted replies: ${issues.join("; ")}`);
  }
  return parsed.data;
}
