import type { Logger } from "../app/logger.js";
import { errorFields } from "./error-fields.js";

export interface SupervisedChannel {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  health?(): unknown;
}

export type ChannelState = "starting" | "running" | "backoff" | "stopped";

export interface ChannelStatus {
  name: string;
  state: ChannelState;
  restarts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  health: unknown;
}

export interface SupervisorOptions {
  logger: Logger;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

interface Entry {
  channel: SupervisedChannel;
  state: ChannelState;
  restarts: number;
  failures: number;
  lastError: string | null;
  nextAttemptAt: Date | null;
  timer: NodeJS.Timeout | null;
}

/**
 * Starts channels and keeps them up: a channel whose start fails, or that reports a failure later,
 * is restarted with exponential backoff; the others are not touched.
 */
export class Supervisor {
  private readonly entries = new Map<string, Entry>();
  private stopping = false;
  private readonly runningListeners = new Set<(name: string) => void>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: SupervisorOptions) {
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 60_000;
  }

  /** Adds and starts a channel; resolves once the first attempt finished (success or scheduled retry). */
  async add(channel: SupervisedChannel): Promise<void> {
    if (this.entries.has(channel.name)) throw new Error(`channel ${channel.name} is already supervised`);
    const entry: Entry = {
      channel,
      state: "starting",
      restarts: 0,
      failures: 0,
      lastError: null,
      nextAttemptAt: null,
      timer: null,
    };
    this.entries.set(channel.name, entry);
    await this.attempt(entry);
  }

  /** A running channel reports that it broke; it is stopped and started again after a backoff. */
  fail(name: string, error: unknown): void {
    const entry = this.entries.get(name);
    if (!entry || this.stopping) return;
    this.options.logger.error(
      { channel: name, ...errorFields(error) },
      "channel failed; restarting with backoff",
    );
    entry.lastError = describe(error);
    void entry.channel.stop().then(
      () => this.schedule(entry),
      (stopError: unknown) => {
        this.options.logger.error(
          { channel: name, ...errorFields(stopError) },
          "channel failed to stop cleanly",
        );
        this.schedule(entry);
      },
    );
  }

  /** Called each time a channel comes up (first start and every restart). */
  onRunning(listener: (name: string) => void): void {
    this.runningListeners.add(listener);
  }

  status(): ChannelStatus[] {
    return [...this.entries.values()].map((entry) => ({
      name: entry.channel.name,
      state: entry.state,
      restarts: entry.restarts,
      lastError: entry.lastError,
      nextAttemptAt: entry.nextAttemptAt?.toISOString() ?? null,
      health: entry.state === "running" && entry.channel.health ? entry.channel.health() : null,
    }));
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.entries.values()].map(async (entry) => {
        if (entry.timer) clearTimeout(entry.timer);
        entry.timer = null;
        const wasRunning = entry.state === "running";
        entry.state = "stopped";
        if (!wasRunning) return;
        try {
          await entry.channel.stop();
        } catch (error) {
          this.options.logger.error(
            { channel: entry.channel.name, ...errorFields(error) },
            "channel failed to stop",
          );
        }
      }),
    );
  }

  private async attempt(entry: Entry): Promise<void> {
    if (this.stopping) return;
    entry.state = "starting";
    entry.nextAttemptAt = null;
    try {
      await entry.channel.start();
      entry.state = "running";
      entry.failures = 0;
      this.options.logger.info({ channel: entry.channel.name, restarts: entry.restarts }, "channel running");
      for (const listener of this.runningListeners) listener(entry.channel.name);
    } catch (error) {
      entry.lastError = describe(error);
      this.options.logger.error(
        { channel: entry.channel.name, ...errorFields(error) },
        "channel failed to start",
      );
      this.schedule(entry);
    }
  }

  private schedule(entry: Entry): void {
    if (this.stopping) return;
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** entry.failures);
    entry.failures += 1;
    entry.state = "backoff";
    entry.nextAttemptAt = new Date(Date.now() + delay);
    entry.timer = setTimeout(() => {
      entry.timer = null;
      entry.restarts += 1;
      void this.attempt(entry);
    }, delay);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
