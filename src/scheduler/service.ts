import type { Clock } from "../agent/clock.js";
import type { Logger } from "../app/logger.js";
import type { JobStore, ScheduledJob, ScheduledRun } from "./jobs.js";
import type { ScheduledRunner } from "./runner.js";

/** What the scheduler needs of an executor (the ScheduledRunner; a recorder in the benchmark). */
export type RunStarter = Pick<ScheduledRunner, "isActive" | "jobActive" | "start" | "stopAll">;

import { runInterrupted } from "./run-owner.js";
import { sleepUntilNextDue, tick } from "./tick.js";

export interface SchedulerOptions {
  store: JobStore;
  runner: RunStarter;
  clock: Clock;
  logger: Logger;
  /** The longest the daemon sleeps between ticks (it wakes earlier for the next due time). */
  maxSleepMs: number;
  /** MERCURY_HOME: where runs' owner files are, so a run whose process is gone is resumed at a tick. */
  home?: string;
}

/**
 * The daemon's scheduler: recovers what a crash left, then sleeps until the next due time (at most
 * `maxSleepMs`, so jobs added by another process and clock jumps are noticed) and ticks.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private ticking: Promise<void> | null = null;

  constructor(private readonly options: SchedulerOptions) {}

  start(): void {
    this.stopped = false;
    this.recover();
    this.schedule(0);
  }

  /** Runs a crash left claimed or running: each resumes (or starts) once, never runs anew. */
  recover(): ScheduledRun[] {
    const { store, runner, logger } = this.options;
    const recovered = store.unfinished().filter((run) => !runner.isActive(run.id));
    for (const run of recovered) {
      const job = store.get(run.jobId);
      if (!job) continue;
      logger.info(
        { component: "scheduler", runId: run.id, jobId: job.id, status: run.status },
        "recovering run",
      );
      void runner.start(job, run);
    }
    return recovered;
  }

  /** One tick at the clock's now; resolves after the claimed runs have started (not finished). */
  tickNow(): { fired: number; recorded: number } {
    const { store, runner, clock, logger } = this.options;
    const nowMs = clock.now().getTime();
    // Retries whose backoff has passed, runs claimed by another process (`schedule run-now`), and
    // runs whose process is gone (a `run-now` killed with kill -9): resumed now, not at the next start;
    // first, so a due time of the same job meanwhile sees its run going and is not stacked on it.
    const home = this.options.home;
    for (const run of [
      ...store.retriesDue(nowMs),
      ...store
        .unfinished()
        .filter(
          (r) =>
            r.status === "claimed" ||
            (home !== undefined && !runner.isActive(r.id) && runInterrupted(r, home)),
        ),
    ]) {
      if (runner.isActive(run.id)) continue;
      const job = store.get(run.jobId);
      if (!job) continue;
      if (run.status === "running")
        logger.info(
          { component: "scheduler", jobId: job.id, runId: run.id, taskId: run.taskId },
          "resuming a run whose process is gone",
        );
      void runner.start(job, run);
    }
    const result = tick(store, nowMs);
    for (const run of result.recorded) {
      logger.info(
        { component: "scheduler", jobId: run.jobId, runId: run.id, timing: run.timing, lateMs: run.lateMs },
        run.reason ?? run.timing,
      );
    }
    for (const { job, run } of result.fire) {
      if (runner.jobActive(job.id)) {
        // Never stacked: the previous run of this job is still going.
        store.finishRun(run.id, {
          outcome: "skipped",
          reason: "skipped: the previous run of this job was still running",
          usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
          refusals: [],
        });
        logger.info(
          { component: "scheduler", jobId: job.id, runId: run.id },
          "previous run still running; skipped",
        );
        continue;
      }
      logger.info(
        { component: "scheduler", jobId: job.id, runId: run.id, timing: run.timing, lateMs: run.lateMs },
        "scheduled run fired",
      );
      void runner.start(job, run);
    }
    return { fired: result.fire.length, recorded: result.recorded.length };
  }

  /** `run-now` inside the daemon: a manual run outside the regular sequence. */
  runNow(job: ScheduledJob): { run: ScheduledRun; done: Promise<void> } {
    const run = this.options.store.claimManual(job, this.options.clock.now().getTime());
    return { run, done: this.options.runner.start(job, run) };
  }

  async stop(reason: string): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking;
    await this.options.runner.stopAll(reason);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = Promise.resolve()
        .then(() => {
          this.tickNow();
        })
        .catch((error: unknown) => {
          this.options.logger.error(
            { component: "scheduler", error: error instanceof Error ? error.message : String(error) },
            "scheduler tick failed; trying again at the next tick",
          );
        })
        .finally(() => {
          const { store, clock, maxSleepMs } = this.options;
          this.schedule(sleepUntilNextDue(store, clock.now().getTime(), maxSleepMs));
        });
    }, delayMs);
    this.timer.unref();
  }
}
