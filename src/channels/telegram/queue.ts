import type { ChannelLogger } from "./logger.js";
import { describeError } from "./transport.js";

/**
 * One promise chain per chat: messages to a chat go out in the order they were produced, and a
 * failed job is logged with its label instead of breaking the chain.
 */
export class ChatQueues {
  private readonly tails = new Map<number, Promise<void>>();

  constructor(private readonly logger: ChannelLogger) {}

  run(chatId: number, label: string, job: () => Promise<void>): Promise<void> {
    const previous = this.tails.get(chatId) ?? Promise.resolve();
    const next = previous.then(job).then(
      () => undefined,
      (error: unknown) => {
        this.logger.error({ chatId, job: label, error: describeError(error) }, `telegram ${label} failed`);
      },
    );
    this.tails.set(chatId, next);
    void next.then(() => {
      if (this.tails.get(chatId) === next) this.tails.delete(chatId);
    });
    return next;
  }

  /** Resolves true when every queued job has finished, false when `timeoutMs` passed first. */
  async idle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.tails.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, left);
      });
      await Promise.race([Promise.all([...this.tails.values()]), expired]);
      clearTimeout(timer);
    }
    return true;
  }

  pending(): number {
    return this.tails.size;
  }
}
