import { randomUUID } from "node:crypto";
import { isContinueRequest } from "../agent/continue-request.js";
import type { AgentEvent, AgentEventBody } from "../agent/events.js";
import { LedgerError, type LedgerTask, type WorkLedger } from "../agent/ledger.js";
import type { DeliveryLedger } from "../agent/ledger-deliveries.js";
import { closeDanglingToolCalls } from "../agent/ledger-repair.js";
import type { TaskReport } from "../agent/runtime.js";
import { liveOwner, releaseTask } from "../agent/task-owner.js";
import { createTaskAuthorizer } from "../app/authorization.js";
import type { MercuryApp } from "../app/container.js";
import { errorFields } from "../daemon/error-fields.js";
import type { AgentGateway, ApprovalDecision, ChannelInput, GatewayStatus } from "./types.js";

export interface GatewayOptions {
  app: MercuryApp;
  ledger: WorkLedger;
  deliveries: DeliveryLedger;
  /** Working directory of tasks that do not name one (the daemon's workspace). */
  defaultCwd: string;
}

export interface SubmitOptions {
  cwd?: string;
  sessionId?: string;
}

interface RunningTask {
  taskId: string;
  sessionId: string;
  userKey: string;
  controller: AbortController;
  done: Promise<void>;
}

interface OpenQuestion {
  userKey: string;
  resolve(answer: string): void;
  reject(error: unknown): void;
}

export type TaskFinishedListener = (task: LedgerTask, report: TaskReport | null) => void;

/** The ledger channel of scheduled runs' tasks. */
export const scheduledTaskChannel = "schedule";

/** After this many crash-resumes a task is paused instead of resumed again. */
export const maxCrashResumes = 3;

// Kept in its own small module so `mercury run` can test a task for it without loading the gateway.
export { isContinueRequest };

/** What the model reads when a crash interrupted its task: the transcript so far is already loaded. */
export function resumeInput(task: LedgerTask): string {
  return (
    "[resume after restart] Mercury stopped unexpectedly while you were working on this task. " +
    "Continue the interrupted task from where it left off; check what was already done before repeating anything. " +
    `The task was: ${task.input}`
  );
}

/**
 * The AgentGateway over one Agent: channels submit, steer, stop and answer through it, and every
 * task is recorded in the work ledger (queued → running → finished), so a crash can be resumed
 * and a deliberate stop is not.
 */
export class DaemonGateway implements AgentGateway {
  private readonly running = new Map<string, RunningTask>();
  private readonly sessions = new Map<string, string>();
  private readonly questions = new Map<string, OpenQuestion>();
  private readonly finishedListeners = new Set<TaskFinishedListener>();
  private accepting = true;

  constructor(private readonly options: GatewayOptions) {}

  subscribe(listener: (event: AgentEvent) => void): () => void {
    return this.options.app.bus.subscribe(listener);
  }

  /** Called after the ledger recorded a task's end (the answer is in the ledger, not yet delivered). */
  onTaskFinished(listener: TaskFinishedListener): () => void {
    this.finishedListeners.add(listener);
    return () => this.finishedListeners.delete(listener);
  }

  async submit(
    input: ChannelInput,
    options: SubmitOptions = {},
  ): Promise<{ taskId: string; sessionId: string }> {
    if (!this.accepting)
      throw new Error("Mercury is shutting down; send the message again after it restarts");
    const { app, ledger } = this.options;
    const text = withAttachments(input);
    const sessionId = this.sessionFor(input.userKey, input.channel, options.sessionId);
    const busy = [...this.running.values()].find((task) => task.sessionId === sessionId);
    if (busy && app.agent.steer(sessionId, text)) return { taskId: busy.taskId, sessionId };
    if (isContinueRequest(text)) {
      const paused = ledger.continuable(input.userKey, sessionId);
      if (paused && !this.running.has(paused.id)) {
        this.launch(ledger.claim(paused.id, "continuation", app.home), text);
        return { taskId: paused.id, sessionId: paused.sessionId };
      }
    }
    const task = ledger.create({
      sessionId,
      userKey: input.userKey,
      channel: input.channel,
      input: text,
      cwd: options.cwd ?? this.options.defaultCwd,
    });
    this.launch(ledger.markRunning(task.id, "first"), text);
    return { taskId: task.id, sessionId };
  }

  /**
   * After a crash: every task the ledger shows queued or running is run again on its session with a
   * resume instruction. Paused tasks wait for "continue". Returns the resumed tasks.
   */
  resumeInterrupted(): LedgerTask[] {
    const resumed: LedgerTask[] = [];
    for (const task of this.options.ledger.interrupted()) {
      if (this.running.has(task.id)) continue;
      // Scheduled runs are resumed by the scheduler, under the job's permissions (never "ask").
      if (task.channel === scheduledTaskChannel) continue;
      // Still run by a live process (a `mercury run` beside this daemon): not a crash.
      if (liveOwner(this.options.app.home, task.id)) continue;
      if (task.resumes >= maxCrashResumes) {
        // Resuming it again may crash again: a restart loop helps nobody. The person decides.
        this.options.ledger.pause(
          task.id,
          `the process stopped unexpectedly ${task.resumes + 1} times while this task ran; say "continue" to try again, or start over`,
        );
        continue;
      }
      let marked: LedgerTask;
      try {
        // Owner check and claim in one step: a `mercury run --continue` may have claimed it since.
        marked = this.options.ledger.claim(task.id, "resume", this.options.app.home);
      } catch (error) {
        if (error instanceof LedgerError) continue;
        throw error;
      }
      const store = this.options.app.agent.transcriptStore;
      const repair = closeDanglingToolCalls(store.load(task.sessionId).map((stored) => stored.message));
      if (repair.length > 0) store.append(task.sessionId, task.id, repair);
      this.sessions.set(sessionKey(task.userKey, task.channel), task.sessionId);
      this.launch(marked, resumeInput(task));
      resumed.push(marked);
    }
    return resumed;
  }

  async stop(userKey: string): Promise<boolean> {
    const tasks = [...this.running.values()].filter((task) => task.userKey === userKey);
    for (const task of tasks) this.cancel(task, `stopped by ${userKey}`);
    await Promise.all(tasks.map((task) => task.done));
    return tasks.length > 0;
  }

  /**
   * Graceful shutdown: the ledger marks every active task cancelled first (so even a shutdown that
   * times out leaves nothing to resume), then the tasks are aborted and awaited up to `timeoutMs`.
   */
  async shutdown(reason: string, timeoutMs: number): Promise<{ cancelled: string[]; timedOut: boolean }> {
    this.accepting = false;
    // Not a task another live process runs (a `mercury run` beside the daemon): stopping the daemon
    // does not stop it, and a "cancelled" row would outlive its real outcome.
    const cancelled = this.options.ledger.cancelActive(reason, (task) => {
      const owner = liveOwner(this.options.app.home, task.id);
      return owner === null || owner.pid === process.pid;
    });
    for (const task of this.running.values()) task.controller.abort(new Error(reason));
    for (const question of this.questions.values()) question.reject(new Error(reason));
    this.questions.clear();
    const all = Promise.all([...this.running.values()].map((task) => task.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    return { cancelled, timedOut };
  }

  async newSession(userKey: string, channel: string): Promise<string> {
    const id = this.options.app.agent.transcriptStore.createSession(userKey, channel);
    this.sessions.set(sessionKey(userKey, channel), id);
    return id;
  }

  async status(userKey: string): Promise<GatewayStatus> {
    const { app } = this.options;
    const primary = app.chain.describe()[0];
    const today = app.agent.usage.today();
    const running = [...this.running.values()].find((task) => task.userKey === userKey) ?? null;
    const sessionId = running?.sessionId ?? this.currentSession(userKey);
    const allowAll = sessionId ? app.approvals.allowAllStatus(sessionId) : null;
    return {
      provider: primary?.provider ?? "none",
      model: primary?.model ?? "none",
      sessionId,
      runningTaskId: running?.taskId ?? null,
      budget: {
        tokensToday: today.tokens,
        dailyTokenLimit: app.config.budget.dailyTokens,
        costToday: today.costUsd,
        dailyUsdLimit: app.config.budget.dailyUsd,
      },
      allowAllUntil: allowAll?.active && allowAll.until ? allowAll.until.toISOString() : null,
    };
  }

  async answerApproval(approvalId: string, decision: ApprovalDecision, answeredBy: string): Promise<void> {
    this.options.app.approvals.answer(approvalId, decision, answeredBy);
  }

  async answerQuestion(questionId: string, answer: string, answeredBy: string): Promise<void> {
    const question = this.questions.get(questionId);
    if (!question)
      throw new Error(`No open question ${questionId}; it was answered already or its task ended.`);
    if (question.userKey !== answeredBy && answeredBy !== "owner") {
      throw new Error(
        `Question ${questionId} belongs to ${question.userKey}; ${answeredBy} cannot answer it.`,
      );
    }
    this.questions.delete(questionId);
    question.resolve(answer);
  }

  runningTasks(): { taskId: string; sessionId: string; userKey: string }[] {
    return [...this.running.values()].map(({ taskId, sessionId, userKey }) => ({
      taskId,
      sessionId,
      userKey,
    }));
  }

  /** Resolves when no task runs (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((task) => task.done));
  }

  private currentSession(userKey: string): string | null {
    for (const [key, id] of this.sessions) if (key.startsWith(`${userKey}\u0000`)) return id;
    return null;
  }

  private sessionFor(userKey: string, channel: string, requested?: string): string {
    const store = this.options.app.agent.transcriptStore;
    const key = sessionKey(userKey, channel);
    if (requested) {
      const found = store.getSession(requested);
      if (found && found.userKey !== userKey) {
        throw new Error(`session ${requested} belongs to another user; start a new session instead`);
      }
      const id = found ? requested : store.createSession(userKey, channel, requested);
      this.sessions.set(key, id);
      return id;
    }
    const known =
      this.sessions.get(key) ??
      store.latestSession(userKey, channel) ??
      store.createSession(userKey, channel);
    this.sessions.set(key, known);
    return known;
  }

  private cancel(task: RunningTask, reason: string): void {
    this.options.ledger.cancel(task.taskId, reason);
    task.controller.abort(new Error(reason));
  }

  private launch(task: LedgerTask, input: string): void {
    const { app, ledger } = this.options;
    const controller = new AbortController();
    const entry: RunningTask = {
      taskId: task.id,
      sessionId: task.sessionId,
      userKey: task.userKey,
      controller,
      done: Promise.resolve(),
    };
    this.running.set(task.id, entry);
    entry.done = (async () => {
      let report: TaskReport | null = null;
      try {
        report = await app.agent.run({
          taskId: task.id,
          sessionId: task.sessionId,
          userKey: task.userKey,
          channel: task.channel,
          input,
          cwd: task.cwd,
          signal: controller.signal,
          authorizerFor: (identity) => createTaskAuthorizer(app, { ...identity, cwd: task.cwd, mode: "ask" }),
          askUser: (question, choices) => this.ask(task, question, choices ?? [], controller.signal),
        });
        ledger.finish(task.id, report);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        ledger.finish(task.id, { outcome: "failed", text: "", reason: `the task crashed: ${message}` });
        app.logger.error({ taskId: task.id, ...errorFields(error) }, "task failed outside the agent loop");
        this.emit(task, { type: "notice", level: "error", message: `task ${task.id} failed: ${message}` });
      } finally {
        this.running.delete(task.id);
        // After the ledger's end, never before (see finishLedgerRun): the claim ledger.claim took.
        releaseTask(app.home, task.id);
      }
      const finished = ledger.require(task.id);
      for (const listener of this.finishedListeners) {
        try {
          listener(finished, report);
        } catch (error) {
          app.logger.error({ taskId: task.id, ...errorFields(error) }, "task-finished listener failed");
        }
      }
    })();
  }

  private ask(task: LedgerTask, question: string, choices: string[], signal: AbortSignal): Promise<string> {
    const questionId = randomUUID();
    const answer = new Promise<string>((resolve, reject) => {
      this.questions.set(questionId, { userKey: task.userKey, resolve, reject });
      signal.addEventListener(
        "abort",
        () => {
          this.questions.delete(questionId);
          reject(signal.reason);
        },
        { once: true },
      );
    });
    this.emit(task, { type: "question", questionId, question, choices });
    return answer;
  }

  private emit(task: LedgerTask, body: AgentEventBody): void {
    this.options.app.bus.emit({
      ...body,
      taskId: task.id,
      sessionId: task.sessionId,
      userKey: task.userKey,
      at: this.options.app.clock.now().toISOString(),
    } as AgentEvent);
  }
}

function sessionKey(userKey: string, channel: string): string {
  return `${userKey}\u0000${channel}`;
}

function withAttachments(input: ChannelInput): string {
  if (!input.attachments || input.attachments.length === 0) return input.text;
  const lines = input.attachments.map((file) => `- ${file.kind} "${file.name}" saved at ${file.path}`);
  return `${input.text}\n\nAttached files:\n${lines.join("\n")}`;
}
