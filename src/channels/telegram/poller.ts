import { type Api, GrammyError } from "grammy";
import type { Update } from "grammy/types";
import type { ChannelLogger } from "./logger.js";
import { backoff, describeError } from "./transport.js";

export interface PollerOptions {
  api: Api;
  logger: ChannelLogger;
  /** Handles one update; must not throw (the channel reports its own failures). */
  dispatch(update: Update): Promise<void>;
  loadOffset(): number;
  saveOffset(offset: number): void;
  /** Long-poll timeout sent to Telegram. */
  pollTimeoutSeconds: number;
  /** A getUpdates that has not answered this long after its timeout is dead: abort and poll again. */
  watchdogGraceMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Wait between attempts while another process holds the token (409). */
  conflictRetryMs: number;
  /**
   * How long the next poll waits for the handlers of the previous batch. The next poll confirms the
   * batch to Telegram, so waiting keeps a crash mid-handling from losing a message; the cap keeps
   * one stuck handler from stopping polling for everyone.
   */
  handlerWaitMs: number;
}

export interface PollerHealth {
  polling: boolean;
  lastPollAt: string | null;
  lastError: string | null;
  restarts: number;
}

export const CONFLICT_MESSAGE =
  "another process is polling this bot token (409 Conflict): stop the other Mercury or bot using TELEGRAM_BOT_TOKEN, or use a different token";

/**
 * Long polling owned by us rather than grammY's bot.start(), because a getUpdates that never answers
 * (laptop sleep, dropped connection) would block bot.start() for minutes: each request here has a
 * deadline, and a missed deadline restarts polling. Updates are dispatched without waiting, so a
 * slow handler never stops polling.
 */
export class Poller {
  private running = false;
  private loopDone: Promise<void> | null = null;
  private current: AbortController | null = null;
  private stopped = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private state: PollerHealth = { polling: false, lastPollAt: null, lastError: null, restarts: 0 };

  constructor(private readonly options: PollerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopped = new AbortController();
    this.state.polling = true;
    this.loopDone = this.loop().finally(() => {
      this.state.polling = false;
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopped.abort();
    this.current?.abort(new Error("telegram polling stopped"));
    await this.loopDone;
    if (
      this.inFlight.size > 0 &&
      !(await this.settleWithin([...this.inFlight], this.options.handlerWaitMs))
    ) {
      this.options.logger.warn(
        { handlers: this.inFlight.size },
        "telegram stopped while handlers were still running (a stuck gateway call)",
      );
    }
  }

  health(): PollerHealth {
    return { ...this.state };
  }

  private async loop(): Promise<void> {
    let offset = this.options.loadOffset();
    let failures = 0;
    while (this.running) {
      const controller = new AbortController();
      this.current = controller;
      const deadlineMs = this.options.pollTimeoutSeconds * 1000 + this.options.watchdogGraceMs;
      let timedOut = false;
      const watchdog = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error(`getUpdates did not answer within ${deadlineMs} ms`));
      }, deadlineMs);
      try {
        const updates = await this.options.api.getUpdates(
          {
            offset,
            timeout: this.options.pollTimeoutSeconds,
            allowed_updates: ["message", "callback_query", "channel_post"],
          },
          // grammY types its signal with the abort-controller polyfill; Node's AbortSignal is what it uses at run time.
          controller.signal as Parameters<Api["getUpdates"]>[1],
        );
        if (failures > 0) {
          this.options.logger.info({ failures }, "telegram polling recovered");
        }
        failures = 0;
        this.state.lastPollAt = new Date().toISOString();
        this.state.lastError = null;
        const batch: Promise<void>[] = [];
        for (const update of updates) {
          offset = Math.max(offset, update.update_id + 1);
          batch.push(this.track(this.options.dispatch(update)));
        }
        if (batch.length > 0) {
          const finished = await this.settleWithin(batch, this.options.handlerWaitMs);
          if (!finished) {
            this.options.logger.warn(
              { waitedMs: this.options.handlerWaitMs, updates: batch.length },
              "telegram handlers still running; polling goes on without them",
            );
          }
          this.options.saveOffset(offset);
        }
      } catch (error) {
        if (!this.running) break;
        failures++;
        const delayMs = this.failureDelay(error, failures, timedOut);
        if (timedOut) this.state.restarts++;
        this.options.logger[failures === 1 || isConflict(error) ? "error" : "warn"](
          { failures, delayMs, error: this.state.lastError },
          `telegram polling failed: ${this.state.lastError}; retrying in ${delayMs} ms`,
        );
        await this.pause(delayMs);
      } finally {
        clearTimeout(watchdog);
      }
    }
  }

  private failureDelay(error: unknown, failures: number, timedOut: boolean): number {
    if (timedOut) {
      this.state.lastError = `getUpdates stopped answering (network loss or sleep); polling restarted`;
      return 0;
    }
    if (isConflict(error)) {
      this.state.lastError = CONFLICT_MESSAGE;
      return this.options.conflictRetryMs;
    }
    if (error instanceof GrammyError && error.error_code === 401) {
      this.state.lastError = `Telegram refused the bot token (401 Unauthorized): check TELEGRAM_BOT_TOKEN`;
      return this.options.retryMaxMs;
    }
    if (error instanceof GrammyError && error.error_code === 429) {
      this.state.lastError = describeError(error);
      return (error.parameters.retry_after ?? 1) * 1000;
    }
    this.state.lastError = describeError(error);
    return backoff(failures, { baseDelayMs: this.options.retryBaseMs, maxDelayMs: this.options.retryMaxMs });
  }

  /** Waits between attempts; stop() ends the wait at once. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const stopped = this.stopped.signal;
      function done() {
        clearTimeout(timer);
        stopped.removeEventListener("abort", done);
        resolve();
      }
      stopped.addEventListener("abort", done, { once: true });
    });
  }

  private async settleWithin(batch: Promise<void>[], ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const done = Promise.all(batch).then(() => true as const);
    try {
      return await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private track(work: Promise<void>): Promise<void> {
    const settled = work.then(
      () => undefined,
      (error: unknown) => {
        this.options.logger.error({ error: describeError(error) }, "telegram update handler failed");
      },
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return settled;
  }
}

function isConflict(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 409;
}
