import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { ModelMessage } from "ai";
import type { UsageTotals } from "../agent/events.js";
import type { AnyTool } from "../tools/types.js";

/** Messages as the SDK models them; stored verbatim (JSON) in the transcript. */
export type { ModelMessage };
export type LanguageModel = LanguageModelV3;

export type ToolChoice = "auto" | "required" | "none";

export interface StepRequest {
  system: string;
  messages: ModelMessage[];
  tools: AnyTool[];
  toolChoice?: ToolChoice;
  /** Restrict which tools the model may call this step (e.g. mutating tools only). */
  activeToolNames?: string[];
  maxOutputTokens: number;
}

export interface ToolCallRequest {
  callId: string;
  toolName: string;
  input: unknown;
}

export type StepFinishReason =
  | "stop"
  | "length"
  | "tool-calls"
  | "content-filter"
  | "error"
  | "other"
  | "none";

/** One provider attempt's bill; failed attempts are counted too. */
export interface AttemptUsage extends UsageTotals {
  provider: string;
  model: string;
  succeeded: boolean;
  /** True when the provider gave no numbers and we estimated from characters. */
  estimated: boolean;
}

export interface StepSuccess {
  ok: true;
  provider: string;
  model: string;
  finishReason: StepFinishReason;
  text: string;
  reasoning: string;
  toolCalls: ToolCallRequest[];
  /** The assistant message(s) to append to the transcript, in SDK form. */
  responseMessages: ModelMessage[];
  attempts: AttemptUsage[];
}

export interface ProviderFailure {
  provider: string;
  model: string;
  cause: string;
  status: number | null;
  retryable: boolean;
}

/** Model failures are data: the loop ends the step with them, nothing is thrown. */
export interface StepFailure {
  ok: false;
  kind: "all-providers-failed" | "aborted" | "interrupted";
  message: string;
  failures: ProviderFailure[];
  /** Text streamed before the failure (never presented as an answer). */
  partialText: string;
  attempts: AttemptUsage[];
}

export type StepResult = StepSuccess | StepFailure;

export interface StepStreamCallbacks {
  onTextDelta?(text: string): void;
  onReasoningDelta?(text: string): void;
  onRetry?(info: { provider: string; attempt: number; delayMs: number; cause: string }): void;
  onFallback?(info: { from: string; to: string; cause: string }): void;
  onStepStart?(info: { provider: string; model: string }): void;
}

/** What the agent loop needs from "the model": one step at a time. */
export interface ModelStepper {
  step(request: StepRequest, signal: AbortSignal, callbacks?: StepStreamCallbacks): Promise<StepResult>;
  describe(): { provider: string; model: string; contextWindow: number | undefined }[];
}

export type { LanguageModelV3 };
