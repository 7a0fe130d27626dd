import type { Logger } from "./logger.js";

/**
 * Work a command or the daemon starts after a task and does not wait for (memory extraction,
 * embeddings). `drain` waits for it; after `timeoutMs` it is aborted: the jobs stay queued in the
 * database and run next time.
 */
export interface BackgroundWork {
  track(work: Promise<void>): void;
  readonly signal: AbortSignal;
  drain(timeoutMs?: number): Promise<void>;
}

export function backgroundWork(logger: Logger): BackgroundWork {
  const running = new Set<Promise<void>>();
  const controller = new AbortController();
  return {
    signal: controller.signal,
    track(work) {
      running.add(work);
      void work.finally(() => running.delete(work));
    },
    async drain(timeoutMs = Number.POSITIVE_INFINITY) {
      const all = Promise.all([...running]).then(() => undefined);
      if (!Number.isFinite(timeoutMs)) return all;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), timeoutMs);
      });
      const first = await Promise.race([all.then(() => "done" as const), timedOut]);
      clearTimeout(timer);
      if (first === "timeout") {
        logger.warn(
          { component: "memory", timeoutMs },
          "background work still running at exit: aborted; queued jobs run next time",
        );
        controller.abort(new Error("exiting"));
        await all;
      }
    },
  };
}
