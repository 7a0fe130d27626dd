import type { Clock } from "../agent/clock.js";
import type { WorkLedger } from "../agent/ledger.js";
import { closeDanglingToolCalls } from "../agent/ledger-repair.js";
import type { Agent, TaskIdentity, TaskReport } from "../agent/runtime.js";
import { liveOwner, releaseTask } from "../agent/task-owner.js";
import type { Logger } from "../app/logger.js";
import { maxCrashResumes, resumeInput } from "../channels/gateway.js";
import type { SqliteDatabase } from "../storage/database.js";
import type { AnyTool, AuthorizationRequest, AuthorizationResult } from "../tools/types.js";
import { scheduledRunTools } from "./authorization.js";
import { formatDuration, type JobStore, type ScheduledJob, type ScheduledRun } from "./jobs.js";
import { startOwnedRun, takeOverRun } from "./run-owner.js";
import {
  jobBudgetCheck,
  jobBudgetPrefix,
  refusalsWithPrefix,
  runTaskPrefix,
  usageWithPrefix,
} from "./usage.js";

export interface RunnerDeps {
  database: SqliteDatabase;
  clock: Clock;
  store: JobStore;
  ledger: WorkLedger;
  agent: Agent;
  tools: readonly AnyTool[];
  logger: Logger;
  authorizerFor(
    job: ScheduledJob,
    identity: TaskIdentity,
  ): (request: AuthorizationRequest) => Promise<AuthorizationResult>;
  /** Sends the run's message to the job's channel, once; returns what happened. */
  deliver(job: ScheduledJob, taskId: string, message: string): Promise<string>;
  /** The task text of a run (the heartbeat reads its file at run time); null: nothing to do. */
  taskText?(job: ScheduledJob): string | null;
  /** A run that never reached a model is tried again this many times in all, with backoff. */
  retry?: { attempts: number; baseDelayMs: number };
  /** MERCURY_HOME: where the owner files of running tasks are, so a live run in another process is left alone. */
  home?: string;
}

const defaultRetry = { attempts: 3, baseDelayMs: 60_000 };

/**
 * Executes one claimed run as a ledger task (claimed → running → finished with outcome), with the
 * job's budget and narrowed permissions, and delivers the result. A claim moves to running by a
 * compare-and-set, so two executors (a tick and a `run-now`, or two processes) never both run it.
 */
export class ScheduledRunner {
  private readonly active = new Map<
    string,
    { jobId: string; controller: AbortController; done: Promise<void> }
  >();

  constructor(private readonly deps: RunnerDeps) {}

  isActive(runId: string): boolean {
    return this.active.has(runId);
  }

  /**
   * Whether a run of this job is executing now (a slow job is never stacked): here, or in another
   * live process (a `schedule run-now` without the daemon still running when the next due time came).
   */
  jobActive(jobId: string): boolean {
    if ([...this.active.values()].some((entry) => entry.jobId === jobId)) return true;
    const home = this.deps.home;
    if (!home) return false;
    return this.deps.store
      .runningRuns(jobId)
      .some((run) => run.taskId !== null && liveOwner(home, run.taskId) !== null);
  }

  activeCount(): number {
    return this.active.size;
  }

  /** Starts the run in the background; the promise resolves when it has ended (tests, shutdown). */
  start(job: ScheduledJob, run: ScheduledRun): Promise<void> {
    const existing = this.active.get(run.id);
    if (existing) return existing.done;
    const controller = new AbortController();
    const entry = { jobId: job.id, controller, done: Promise.resolve() };
    this.active.set(run.id, entry);
    entry.done = this.execute(job, run, controller.signal)
      .catch((error: unknown) => {
        this.deps.logger.error(
          {
            component: "scheduler",
            runId: run.id,
            error: error instanceof Error ? error.message : String(error),
          },
          "scheduled run failed outside the agent",
        );
      })
      .finally(() => {
        this.active.delete(run.id);
        // The owner file goes after the run's last write (finished, or waiting for a retry), never
        // before: a running row without a live owner reads as a run whose process is gone.
        const taskId = this.deps.store.getRun(run.id)?.taskId;
        if (this.deps.home !== undefined && taskId) releaseTask(this.deps.home, taskId);
      });
    return entry.done;
  }

  async stopAll(reason: string): Promise<void> {
    for (const entry of this.active.values()) entry.controller.abort(new Error(reason));
    await Promise.all([...this.active.values()].map((entry) => entry.done));
  }

  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.all([...this.active.values()].map((entry) => entry.done));
  }

  private async execute(
    claimedJob: ScheduledJob,
    claimedRun: ScheduledRun,
    signal: AbortSignal,
  ): Promise<void> {
    const { store, ledger, clock } = this.deps;
    // The job as it is now: it may have been removed or paused since the run was claimed or began
    // waiting for a retry (another process, the dashboard); such a run does not start.
    const job = store.get(claimedJob.id) ?? claimedJob;
    let run = claimedRun;
    if (run.status === "claimed" || run.status === "retry-wait") {
      const stop =
        job.status === "removed"
          ? "the job was removed"
          : job.status === "paused" && run.timing !== "manual"
            ? `the job is paused${job.statusReason ? ` (${job.statusReason})` : ""}`
            : null;
      if (stop) {
        const latest = store.requireRun(run.id);
        if (latest.status !== "claimed" && latest.status !== "retry-wait") return;
        store.finishRun(run.id, {
          outcome: "skipped",
          reason: `not run: ${stop} before this run ${run.status === "retry-wait" ? "was retried" : "started"}${latest.reason ? `; ${latest.reason}` : ""}`,
          usage: usageWithPrefix(this.deps.database, runTaskPrefix(job.id, run.id)),
          refusals: refusalsWithPrefix(this.deps.database, runTaskPrefix(job.id, run.id)),
        });
        return;
      }
    }
    if (run.status === "running") {
      // Running in another live process (a `schedule run-now` without the daemon, a second daemon):
      // that process finishes it, and resuming it here ran it twice. Finished since it was read: done.
      const takeover = takeOverRun(this.deps.database, store, this.deps.home, run.id);
      if (takeover !== "mine") {
        this.deps.logger.info(
          { component: "scheduler", runId: run.id, taskId: run.taskId, takeover },
          takeover === "live-elsewhere"
            ? "run is running in another live process; left to it"
            : "run is no longer running; nothing to resume",
        );
        return;
      }
      run = store.requireRun(run.id);
    }
    const prefix = runTaskPrefix(job.id, run.id);
    let taskId: string;
    let input: string;
    const previous = run.taskId ? ledger.get(run.taskId) : null;
    if (
      run.status === "running" &&
      previous &&
      (previous.status === "running" || previous.status === "queued")
    ) {
      // A crash interrupted this run: resume the same task (its transcript is kept), never start another.
      taskId = previous.id;
      if (job.status === "removed") {
        // Removed while its process was gone: nobody wants the rest of it any more.
        const reason = "interrupted (the process running it was gone) and not resumed: the job was removed";
        ledger.cancel(taskId, reason);
        await this.finish(job, run, taskId, null, "cancelled", reason);
        return;
      }
      if (previous.resumes >= maxCrashResumes) {
        const reason = `the process stopped unexpectedly ${previous.resumes + 1} times during this run; paused`;
        ledger.pause(taskId, reason);
        await this.finish(job, run, taskId, null, "paused", reason);
        return;
      }
      const transcripts = this.deps.agent.transcriptStore;
      const repair = closeDanglingToolCalls(
        transcripts.load(previous.sessionId).map((stored) => stored.message),
      );
      if (repair.length > 0) transcripts.append(previous.sessionId, taskId, repair);
      ledger.markRunning(taskId, "resume");
      input = resumeInput(previous);
    } else if (run.status === "running" && previous) {
      // The task already ended; the crash came before the run was recorded as finished.
      await this.finish(job, run, previous.id, null, previous.outcome ?? "failed", previous.reason);
      return;
    } else {
      const text = this.deps.taskText ? this.deps.taskText(job) : job.task;
      taskId = run.status === "running" && run.taskId ? run.taskId : `${prefix}${run.attempts + 1}`;
      if (run.status === "running") {
        // Claimed and marked running, but the crash came before the ledger task existed.
      } else if (!startOwnedRun(this.deps.database, store, this.deps.home, run.id, taskId)) {
        return;
      }
      if (text === null) {
        ledger.create({
          id: taskId,
          sessionId: taskId,
          userKey: job.owner,
          channel: "schedule",
          input: "(nothing to do)",
          cwd: job.workspace,
        });
        ledger.finish(taskId, {
          outcome: "responded",
          text: "",
          reason: "the job's instructions are empty; nothing was run",
        });
        await this.finish(
          job,
          run,
          taskId,
          null,
          "responded",
          "the job's instructions are empty; nothing was run",
        );
        return;
      }
      input = `[Scheduled job "${job.name}" (${job.id}); nobody is at the keyboard: actions that need approval are refused]\n${text}`;
      ledger.create({
        id: taskId,
        sessionId: taskId,
        userKey: job.owner,
        channel: "schedule",
        input,
        cwd: job.workspace,
      });
      ledger.markRunning(taskId, "first");
    }
    let report: TaskReport | null = null;
    try {
      report = await this.deps.agent.run({
        taskId,
        sessionId: ledger.require(taskId).sessionId,
        userKey: job.owner,
        channel: "schedule",
        input,
        cwd: job.workspace,
        signal,
        tools: scheduledRunTools(this.deps.tools, job.permissions),
        checkBudget: jobBudgetCheck(this.deps.database, () => clock.now(), job.id, run.id, job.budget),
        ...unfinishedRun(store.previousFinished(job.id, run.id)),
        authorizerFor: (identity) => this.deps.authorizerFor(job, identity),
      });
      // The loop says "stopped by the user"; nobody stops a scheduled run by hand: say what did.
      if (report.outcome === "cancelled" && signal.aborted)
        report = { ...report, reason: `interrupted: ${stopCause(signal)}` };
      ledger.finish(taskId, report);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      ledger.finish(taskId, { outcome: "failed", text: "", reason: `the run crashed: ${message}` });
    }
    const task = ledger.require(taskId);
    const usage = usageWithPrefix(this.deps.database, prefix);
    const retry = this.deps.retry ?? defaultRetry;
    const attempts = store.requireRun(run.id).attempts;
    if (
      task.outcome === "failed" &&
      usage.succeededAttempts === 0 &&
      attempts < retry.attempts &&
      !signal.aborted
    ) {
      const delay = retry.baseDelayMs * 2 ** (attempts - 1);
      store.waitForRetry(
        run.id,
        clock.now().getTime() + delay,
        `attempt ${attempts} never reached a model (${task.reason ?? "no answer"}); retrying in ${formatDuration(delay)}`,
      );
      return;
    }
    await this.finish(job, run, taskId, report, task.outcome ?? "failed", task.reason);
  }

  private async finish(
    job: ScheduledJob,
    run: ScheduledRun,
    taskId: string,
    report: TaskReport | null,
    outcome: string,
    reason: string | null,
  ): Promise<void> {
    const { store, database } = this.deps;
    const prefix = runTaskPrefix(job.id, run.id);
    const usage = usageWithPrefix(database, prefix);
    const refusals = refusalsWithPrefix(database, prefix);
    const finished = store.finishRun(run.id, {
      outcome,
      reason,
      usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costUsd: usage.costUsd },
      refusals,
    });
    const budgetStop = outcome === "paused" && reason?.startsWith(jobBudgetPrefix) === true;
    if (budgetStop) store.setStatus(job.id, "paused", reason);
    // A plain answer with a note (it verified nothing beside a failure) is no silent success.
    const succeeded = (outcome === "completed" || outcome === "responded") && reason === null;
    if (job.silent && succeeded) {
      store.setDelivery(run.id, "silent (succeeded)");
      return;
    }
    const message = runMessage(
      job,
      finished,
      report?.text ?? this.deps.ledger.get(taskId)?.finalAnswer ?? "",
      budgetStop,
    );
    store.setDelivery(run.id, await this.deps.deliver(job, taskId, message));
  }
}

/**
 * A job whose previous run failed, paused or was interrupted (cancelled): this run's plain answer
 * ("fixed, all tests pass") says so, since it checked nothing. Each run has its own session, so the session's latest task never
 * named the job's last run, and the follow-up read as the job's success.
 */
function unfinishedRun(previous: ScheduledRun | null): { unfinishedBefore?: string } {
  const unfinished = ["failed", "paused", "cancelled"];
  if (!previous || !unfinished.includes(previous.outcome ?? "")) return {};
  return {
    unfinishedBefore: `the job's previous run ${previous.id}${previous.taskId ? ` (task ${previous.taskId})` : ""} is ${previous.outcome}${previous.reason ? ` (${previous.reason})` : ""} and this run ran no check of its work`,
  };
}

function stopCause(signal: AbortSignal): string {
  const cause: unknown = signal.reason;
  return cause instanceof Error ? cause.message : String(cause);
}

/** What the owner reads: which job, how it ended, how late, what was refused, what it cost. */
export function runMessage(job: ScheduledJob, run: ScheduledRun, text: string, jobPaused: boolean): string {
  const lines = [`⏰ ${job.name} (${job.id}): ${run.outcome ?? "unknown"}${timingNote(run)}`];
  if (text.trim() !== "") lines.push("", text.trim());
  // A plain answer's note (nothing it says was checked) reaches the owner like a failure's reason.
  if (run.reason)
    lines.push(
      "",
      run.outcome === "completed" || run.outcome === "responded"
        ? `Note: ${run.reason}`
        : `Reason: ${run.reason}`,
    );
  if (jobPaused)
    lines.push(
      "",
      `The job is paused. Resume it with \`mercury schedule resume ${job.id}\` or /schedule resume ${job.id}.`,
    );
  if (run.refusals.length > 0) {
    lines.push("", "Refused (needed approval; nobody was there to answer):");
    for (const refusal of run.refusals.slice(0, 10)) lines.push(`- ${refusal}`);
  }
  const tokens = run.usage.inputTokens + run.usage.outputTokens;
  lines.push("", `Usage: ${tokens} tokens, $${run.usage.costUsd.toFixed(4)}`);
  return lines.join("\n");
}

function timingNote(run: ScheduledRun): string {
  if (run.timing === "late") {
    const collapsed = run.collapsed > 1 ? `; ${run.collapsed} due times collapsed into this one run` : "";
    return ` (late by ${formatDuration(run.lateMs)}${collapsed})`;
  }
  if (run.timing === "manual") return " (run now)";
  return "";
}
