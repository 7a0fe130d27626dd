export interface StallSettings {
  /** No activity for this long → a visible "still working" notice. */
  softMs: number;
  /** No activity for this long → the step is aborted and the task pauses. */
  hardMs: number;
}

export const defaultStallSettings: StallSettings = { softMs: 180_000, hardMs: 480_000 };

/**
 * Watches for signs of life (model tokens, streamed command output, tool results). Waiting for a
 * person (approval, a question) is not a stall, so those waits suspend it.
 */
export class StallWatchdog {
  private readonly controller = new AbortController();
  private softTimer: NodeJS.Timeout | undefined;
  private hardTimer: NodeJS.Timeout | undefined;
  private suspended = 0;
  private lastActivity = Date.now();
  private stalledForMs = 0;

  constructor(
    private readonly settings: StallSettings,
    private readonly onSoft: (idleMs: number) => void,
  ) {}

  /** Aborts when the hard limit passes without activity. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get fired(): boolean {
    return this.controller.signal.aborted;
  }

  get idleMs(): number {
    return this.stalledForMs;
  }

  start(): void {
    this.touch();
  }

  touch(): void {
    if (this.fired) return;
    this.lastActivity = Date.now();
    this.clear();
    if (this.suspended > 0) return;
    this.softTimer = setTimeout(() => this.onSoft(Date.now() - this.lastActivity), this.settings.softMs);
    this.hardTimer = setTimeout(() => {
      this.stalledForMs = Date.now() - this.lastActivity;
      this.clear();
      this.controller.abort(new Error(`stalled: no activity for ${this.stalledForMs} ms`));
    }, this.settings.hardMs);
    this.softTimer.unref();
    this.hardTimer.unref();
  }

  /** Runs `work` with the watchdog paused (a person is being waited for). */
  async whileWaiting<T>(work: () => Promise<T>): Promise<T> {
    this.suspended += 1;
    this.clear();
    try {
      return await work();
    } finally {
      this.suspended -= 1;
      this.touch();
    }
  }

  stop(): void {
    this.clear();
  }

  private clear(): void {
    if (this.softTimer) clearTimeout(this.softTimer);
    if (this.hardTimer) clearTimeout(this.hardTimer);
    this.softTimer = undefined;
    this.hardTimer = undefined;
  }
}
