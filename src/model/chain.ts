import type { ResolvedConfig } from "../config/schema.js";
import type { AttemptResult } from "./attempt.js";
import { loadAttempt, preloadAttempt } from "./attempt-loader.js";
import { prepareModel } from "./lazy-model.js";
import { costOf } from "./pricing.js";
import type { ProviderHandle } from "./providers.js";
import type {
  AttemptUsage,
  ModelStepper,
  ProviderFailure,
  StepRequest,
  StepResult,
  StepStreamCallbacks,
} from "./types.js";

export interface ChainOptions {
  retry: ResolvedConfig["retry"];
  prices: ResolvedConfig["prices"];
  /** Injectable for tests: waits `ms` unless the signal aborts first. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Full jitter: a random delay up to the exponential cap, so many clients do not retry in lockstep. */
export function backoffDelay(attempt: number, base: number, max: number, random: () => number): number {
  const cap = Math.min(max, base * 2 ** (attempt - 1));
  return Math.round(cap / 2 + (random() * cap) / 2);
}

/**
 * The ordered fallback chain. Each provider is tried with retries on retryable failures (429, 5xx,
 * timeouts, dropped streams); 400/401/403 move straight to the next provider. When all fail, the
 * message names every provider and its real cause.
 */
export class ProviderChain implements ModelStepper {
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly random: () => number;

  constructor(
    private readonly providers: ProviderHandle[],
    private readonly options: ChainOptions,
  ) {
    if (providers.length === 0) throw new Error("the provider chain is empty");
    this.sleep = options.sleep ?? abortableSleep;
    this.random = options.random ?? Math.random;
  }

  describe() {
    return this.providers.map((handle) => ({
      provider: handle.label,
      model: handle.entry.model,
      contextWindow: handle.entry.contextWindow,
    }));
  }

  /**
   * Loads what the first call needs (the AI SDK, the first usable provider's package), for a command
   * that calls the model at once. Never rejects: a failed load is reported by the call itself.
   */
  async prepare(): Promise<void> {
    const first = this.providers.find((handle) => handle.model !== null)?.model;
    await Promise.all([preloadAttempt(), first ? prepareModel(first) : undefined]);
  }

  /** `/model` in chat: the primary provider now uses another model; the fallbacks stay as they are. */
  replacePrimary(handle: ProviderHandle): void {
    this.providers[0] = handle;
  }

  /** A chain that starts at provider `index` (narration guard: "try the next provider"). */
  rotated(index: number): ProviderChain {
    const start = index % this.providers.length;
    return new ProviderChain(
      [...this.providers.slice(start), ...this.providers.slice(0, start)],
      this.options,
    );
  }

  async step(
    request: StepRequest,
    signal: AbortSignal,
    callbacks: StepStreamCallbacks = {},
  ): Promise<StepResult> {
    const failures: ProviderFailure[] = [];
    const attempts: AttemptUsage[] = [];
    let partialText = "";
    let lastWasInterrupted = false;

    for (const [index, handle] of this.providers.entries()) {
      if (index > 0) {
        const previous = failures[failures.length - 1];
        callbacks.onFallback?.({
          from: this.providers[index - 1]?.label ?? "?",
          to: handle.label,
          cause: previous?.cause ?? "",
        });
      }
      if (!handle.model) {
        failures.push({
          provider: handle.label,
          model: handle.entry.model,
          cause: handle.problem ?? "unavailable",
          status: null,
          retryable: false,
        });
        continue;
      }
      for (let attempt = 1; attempt <= this.options.retry.attempts; attempt++) {
        callbacks.onStepStart?.({ provider: handle.label, model: handle.entry.model });
        const { runAttempt } = await loadAttempt();
        const result: AttemptResult = await runAttempt(
          handle.model,
          request,
          signal,
          this.options.retry.requestTimeoutMs,
          callbacks,
        );
        attempts.push(this.bill(handle, result));
        if (result.ok) {
          return {
            ok: true,
            provider: handle.label,
            model: handle.entry.model,
            finishReason: result.finishReason,
            text: result.text,
            reasoning: result.reasoning,
            toolCalls: result.toolCalls,
            responseMessages: result.responseMessages,
            attempts,
          };
        }
        if (result.aborted) {
          return {
            ok: false,
            kind: "aborted",
            message: "aborted",
            failures,
            partialText: result.partialText,
            attempts,
          };
        }
        partialText = result.partialText || partialText;
        lastWasInterrupted = result.interrupted;
        const failure: ProviderFailure = {
          provider: handle.label,
          model: handle.entry.model,
          cause: explainRejectedKey(handle, result.error.status, result.error.cause),
          status: result.error.status,
          retryable: result.error.retryable,
        };
        if (!result.error.retryable || attempt === this.options.retry.attempts) {
          failures.push(failure);
          break;
        }
        const delay = Math.max(
          backoffDelay(attempt, this.options.retry.baseDelayMs, this.options.retry.maxDelayMs, this.random),
          Math.min(result.error.retryAfterMs ?? 0, 60_000),
        );
        callbacks.onRetry?.({ provider: handle.label, attempt, delayMs: delay, cause: failure.cause });
        await this.sleep(delay, signal);
        if (signal.aborted) {
          return { ok: false, kind: "aborted", message: "aborted", failures, partialText, attempts };
        }
      }
    }
    const message = `every provider failed: ${failures.map((failure) => `${failure.provider}: ${failure.cause}`).join("; ")}`;
    return {
      ok: false,
      kind: lastWasInterrupted ? "interrupted" : "all-providers-failed",
      message,
      failures,
      partialText,
      attempts,
    };
  }

  private bill(handle: ProviderHandle, result: AttemptResult): AttemptUsage {
    const { inputTokens, outputTokens, estimated } = result.usage;
    return {
      provider: handle.label,
      model: handle.entry.model,
      inputTokens,
      outputTokens,
      costUsd: costOf(this.options.prices, handle.entry.model, inputTokens, outputTokens),
      succeeded: result.ok,
      estimated,
    };
  }
}

/** A 401/403 means the key is wrong (or lacks access): say so, and name the variable to fix. */
export function explainRejectedKey(handle: ProviderHandle, status: number | null, cause: string): string {
  if (status !== 401 && status !== 403) return cause;
  const variable = handle.keyVariable ?? "MERCURY_API_KEY";
  return `the API key was rejected by ${handle.label} (${cause}); fix: put the right key in ${variable} (environment or $MERCURY_HOME/.env), or run \`mercury setup\``;
}
