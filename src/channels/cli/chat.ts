import type { AgentEvent } from "../../agent/events.js";
import type { TaskIdentity, TaskReport } from "../../agent/runtime.js";
import type { MercuryApp } from "../../app/container.js";
import { beginLedgerRun, finishLedgerRun, type LedgerRun } from "../../cli/commands/run-ledger.js";
import { skillsSlashCommand } from "../../skills/slash-command.js";
import type { AuthorizationRequest, AuthorizationResult } from "../../tools/types.js";
import { ChatTerminal } from "./chat-terminal.js";
import {
  budgetLine,
  memoryCommand,
  modelCommand,
  permissionsCommand,
  resumeCommand,
  type SessionCommandContext,
  statusLines,
} from "./session-commands.js";
import { approvalAnswers, helpWidth, parseSlashCommand, slashCommandHelp } from "./slash-commands.js";
import { undoInChat } from "./undo-command.js";
import { agentsLines, scheduleLines } from "./work-commands.js";

export interface ChatOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  errorOutput: NodeJS.WritableStream;
  interactive: boolean;
  colors: boolean;
  cwd: string;
  sessionId?: string;
  /** Background work to finish (memory extraction) before the renderer goes away, so receipts show. */
  drain?(): Promise<void>;
  authorizerFor(task: TaskIdentity): (request: AuthorizationRequest) => Promise<AuthorizationResult>;
}

/** A question the next typed line answers; `refuse` is how a stop (Ctrl+C, Ctrl+D) answers it. */
type PendingAnswer = { prompt: string; resolve(answer: string): void; refuse(): void };

type RunningTask = {
  controller: AbortController;
  done: Promise<TaskReport | null>;
  /** Null until the ledger row exists (it is made as the task starts). */
  ledger: LedgerRun | null;
};

/**
 * The standalone terminal chat: a readline REPL over the agent. While a task runs, typed lines
 * steer it; the first Ctrl+C stops the task, a second one (or one when idle, twice in 2 s) exits.
 * Every task is in the work ledger like `mercury run`'s, and a stop is recorded there at once
 * (cancelled, never resumed by a later "continue"); a stop at an approval prompt records a deny.
 */
export class TerminalChat {
  private terminal: ChatTerminal | null = null;
  private sessionId: string | null;
  private running: RunningTask | null = null;
  private pending: PendingAnswer | null = null;
  private lastInterruptAt = 0;
  private readonly queue: string[] = [];
  private inputEnded = false;

  constructor(
    private readonly app: MercuryApp,
    private readonly options: ChatOptions,
  ) {
    this.sessionId = options.sessionId ?? app.agent.transcriptStore.latestSession("owner", "cli");
  }

  /** Resolves when the user exits (or input ends and the last task finished). */
  async start(): Promise<void> {
    const terminal = new ChatTerminal({ ...this.options, showReceipts: this.app.config.memory.showReceipts });
    this.terminal = terminal;
    const unsubscribe = this.app.bus.subscribe(terminal.render);
    const unsubscribeApprovals = this.app.bus.subscribe((event) => this.onApprovalEvent(event));
    if (this.options.interactive) {
      const primary = this.app.chain.describe()[0];
      this.info(
        `Mercury — ${primary?.provider}/${primary?.model}. /help for commands, Ctrl+C to stop, twice to exit.`,
      );
      // A terminal not drawn on (TERM=dumb) shows the prompt only when asked to.
      this.showPrompt();
    }
    terminal.onLine((line) => this.onLine(line));
    terminal.onInterrupt(() => this.onInterrupt());
    await terminal.finished;
    this.inputEnded = true;
    // The terminal is back in its normal mode, so Ctrl+C is now a signal: without a listener it
    // would kill the chat (exit 130) while it stops the task and saves what was said. Here it only
    // stops the task if it still runs (the exit's own wait listens too, chat-action.ts).
    const leaveSooner = (): void => {
      if (this.running && !this.running.controller.signal.aborted) this.stopRunning("stopped with Ctrl+C");
    };
    if (this.options.interactive) process.on("SIGINT", leaveSooner);
    try {
      await this.finishAfterInput();
    } finally {
      process.removeListener("SIGINT", leaveSooner);
    }
    terminal.dispose();
    unsubscribe();
    unsubscribeApprovals();
  }

  private async finishAfterInput(): Promise<void> {
    // Ctrl+D (or /exit) at a terminal ends the session: the task running is stopped, not left to
    // run on with no one to answer its approvals and no way left to stop it.
    if (this.options.interactive) this.stopRunning("the chat was closed");
    if (this.pending && !this.options.interactive) this.onLine("");
    while (this.running || this.queue.length > 0) {
      if (this.running) await this.running.done;
      else this.startNextQueued();
    }
    await this.options.drain?.();
  }

  private showPrompt(): void {
    this.terminal?.showPrompt();
  }

  /** An approval for the terminal's owner: the next line answers it (once / session / always / deny). */
  private onApprovalEvent(event: AgentEvent): void {
    if (event.type !== "approval-request" || event.userKey !== "owner") return;
    this.info("  answer: y = once, s = this session, a = always, n = deny");
    this.terminal?.asking("approve? y/s/a/n");
    const pending: PendingAnswer = {
      prompt: event.summary,
      resolve: (answer) => {
        const decision = approvalAnswers[answer.toLowerCase()];
        if (!decision && this.options.interactive) {
          // A typo at a terminal is asked again (as the attached chat does), never taken as a deny
          // that fails the task's action; piped input has no one to ask, so it stays a deny.
          this.info(`"${answer}" is not an answer: y = once, s = this session, a = always, n = deny`);
          this.pending = pending;
          return;
        }
        this.terminal?.asking(null);
        if (!decision) {
          this.info(`"${answer}" is not an answer; treating it as deny. Use y, s, a or n.`);
        }
        this.answerApproval(event.approvalId, decision ?? "deny");
      },
      refuse: () => {
        this.terminal?.asking(null);
        this.info("approval denied: the task was stopped at the prompt");
        this.answerApproval(event.approvalId, "deny");
      },
    };
    this.pending = pending;
  }

  private answerApproval(approvalId: string, decision: NonNullable<(typeof approvalAnswers)[string]>): void {
    try {
      this.app.approvals.answer(approvalId, decision, "owner");
    } catch (error) {
      this.info(`could not record the answer: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Stops the running task: a pending approval is answered "deny" (so it is recorded, not left
   * pending to be re-announced), the ledger marks the task cancelled before it winds down (a second
   * Ctrl+C may end the process first), then the task is aborted. False when nothing was running.
   */
  private stopRunning(reason: string): boolean {
    const pending = this.pending;
    this.pending = null;
    pending?.refuse();
    const running = this.running;
    if (!running) return false;
    running.ledger?.ledger.cancel(running.ledger.taskId, "stopped by the user");
    running.controller.abort(new Error(reason));
    return true;
  }

  private info(line: string): void {
    if (this.terminal) this.terminal.info(line);
    else this.options.errorOutput.write(`${line}\n`);
  }

  private onInterrupt(): void {
    if (this.running && !this.running.controller.signal.aborted) {
      this.stopRunning("stopped with Ctrl+C");
      this.info("stopping… (Ctrl+C again to exit)");
      this.lastInterruptAt = Date.now();
      return;
    }
    // A second Ctrl+C while the stopped task winds down exits (start() waits for it to finish).
    if (this.running) {
      this.terminal?.close();
      return;
    }
    if (Date.now() - this.lastInterruptAt < 2000) {
      this.terminal?.close();
      return;
    }
    this.lastInterruptAt = Date.now();
    this.info("(Ctrl+C again to exit)");
    this.showPrompt();
  }

  private onLine(message: string): void {
    if (this.pending) {
      const pending = this.pending;
      this.pending = null;
      pending.resolve(message.trim());
      return;
    }
    const command = parseSlashCommand(message);
    if (command) {
      void this.runSlashCommand(command.name, command.argument).catch((error: unknown) => {
        this.info(
          `${command.name} failed: ${this.app.redactor.redact(error instanceof Error ? error.message : String(error))}`,
        );
        this.showPrompt();
      });
      return;
    }
    const text = message.startsWith("//") ? message.slice(1) : message;
    if (text.trim() === "") {
      this.showPrompt();
      return;
    }
    if (this.running) {
      // Interactive: steer the running task. Piped input: run messages one after another.
      if (this.options.interactive && this.sessionId && this.app.agent.steer(this.sessionId, text)) {
        this.info("(added to the running task)");
        return;
      }
      this.queue.push(text);
      return;
    }
    this.queue.push(text);
    this.startNextQueued();
  }

  private startNextQueued(): void {
    const text = this.queue.shift();
    if (text === undefined) return;
    const controller = new AbortController();
    const running: RunningTask = { controller, done: Promise.resolve(null), ledger: null };
    // Started in this turn of the event loop, not a later one: the task's first message is in the
    // transcript before the next piped line (a /resume listing the sessions) is handled.
    running.done = this.startTask(text, running)
      .then((report) => {
        if (running.ledger) finishLedgerRun(running.ledger, report);
        this.sessionId = report.sessionId;
        return report;
      })
      .catch((error: unknown) => {
        if (running.ledger) finishLedgerRun(running.ledger, { error });
        this.info(`task failed: ${this.app.redactor.redact(String(error))}`);
        return null;
      })
      .finally(() => {
        this.running = null;
        if (this.queue.length > 0) this.startNextQueued();
        else this.showPrompt();
      });
    this.running = running;
  }

  private startTask(text: string, running: RunningTask): Promise<TaskReport> {
    try {
      const ledger = beginLedgerRun(this.app, {
        input: text,
        cwd: this.options.cwd,
        sessionId: this.sessionId ?? undefined,
      });
      running.ledger = ledger;
      this.sessionId = ledger.sessionId;
      return this.app.agent.run({
        userKey: "owner",
        channel: "cli",
        sessionId: ledger.sessionId,
        taskId: ledger.taskId,
        input: text,
        cwd: this.options.cwd,
        signal: running.controller.signal,
        authorizerFor: this.options.authorizerFor,
        askUser: (question, choices) => this.ask(question, choices),
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Asks the person at the terminal; the next line they type is the answer. */
  ask(question: string, choices: string[] = []): Promise<string> {
    return new Promise((resolve) => {
      // Piped input answers in order: a line read while the task ran is the answer to its question;
      // once input has ended there is no one to answer (without this the task waited forever).
      if (!this.options.interactive && (this.queue.length > 0 || this.inputEnded)) {
        const answer = this.queue.shift() ?? "";
        this.info(`? ${question} -> ${answer === "" ? "(no answer: input ended)" : answer}`);
        resolve(answer.trim());
        return;
      }
      this.pending = {
        prompt: question,
        resolve: (answer) => {
          this.terminal?.asking(null);
          resolve(answer);
        },
        // A stop answers nothing: the task is being aborted and gets no made-up answer.
        refuse: () => {
          this.terminal?.asking(null);
          resolve("");
        },
      };
      this.info(`? ${question}${choices.length > 0 ? ` [${choices.join(" / ")}]` : ""}`);
      this.terminal?.asking("answer");
    });
  }

  private async runSlashCommand(name: string, argument: string): Promise<void> {
    switch (name) {
      case "/help":
        for (const [command, text] of Object.entries(slashCommandHelp))
          this.info(`${command.padEnd(helpWidth)} ${text}`);
        break;
      case "/skills":
        for (const line of skillsSlashCommand(await this.app.skills.load(), argument, this.options.cwd))
          this.info(line);
        break;
      case "/new":
        this.stopRunning("new session");
        this.sessionId = this.app.agent.transcriptStore.createSession("owner", "cli");
        this.info(`new session ${this.sessionId}`);
        break;
      case "/stop":
        if (!this.stopRunning("stopped with /stop")) this.info("nothing is running");
        break;
      case "/status":
        this.info(statusLines(this.context()));
        break;
      case "/budget":
        this.info(budgetLine(this.app));
        break;
      case "/memory":
        await memoryCommand(this.context(), argument);
        break;
      case "/permissions":
        this.sessionId = permissionsCommand(this.context(), argument);
        break;
      case "/schedule":
        if (argument.trim() === "") for (const line of scheduleLines(this.app, Date.now())) this.info(line);
        // The agent's schedule_task tool always asks the person before it creates a job.
        else this.onLine(`Schedule this: ${argument.trim()}`);
        break;
      case "/agents":
        for (const line of agentsLines(this.app, argument)) this.info(line);
        break;
      case "/undo":
        await undoInChat(
          this.app.database,
          argument,
          (line) => this.info(line),
          (question, choices) => this.ask(question, choices),
        );
        break;
      case "/model":
        modelCommand(this.context(), argument.trim());
        break;
      case "/resume":
        this.sessionId = resumeCommand(this.context(), argument.trim());
        break;
      case "/exit":
      case "/quit":
        this.stopRunning("exit");
        this.terminal?.close();
        return;
      default:
        this.info(`unknown command ${name}; /help lists them`);
    }
    if (!this.running) this.showPrompt();
  }

  private context(): SessionCommandContext {
    return {
      app: this.app,
      info: (line) => this.info(line),
      sessionId: this.sessionId,
      running: this.running !== null,
    };
  }
}

export type { AgentEvent };
