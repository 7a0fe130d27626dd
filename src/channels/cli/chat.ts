import { createInterface, type Interface } from "node:readline";
import type { AgentEvent } from "../../agent/events.js";
import type { TaskIdentity, TaskReport } from "../../agent/runtime.js";
import type { MercuryApp } from "../../app/container.js";
import { skillsSlashCommand } from "../../skills/slash-command.js";
import type { AuthorizationRequest, AuthorizationResult } from "../../tools/types.js";
import { disableBracketedPaste, enableBracketedPaste, PasteAssembler } from "./paste.js";
import { createTerminalRenderer } from "./renderer.js";
import { approvalAnswers, parseSlashCommand, slashCommandHelp } from "./slash-commands.js";

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

type PendingAnswer = { prompt: string; resolve(answer: string): void };

/**
 * The standalone terminal chat: a readline REPL over the agent. While a task runs, typed lines
 * steer it; the first Ctrl+C stops the task, a second one (when idle) exits.
 */
export class TerminalChat {
  private readline: Interface | null = null;
  private sessionId: string | null;
  private running: { controller: AbortController; done: Promise<TaskReport | null> } | null = null;
  private pending: PendingAnswer | null = null;
  private lastInterruptAt = 0;
  private readonly paste = new PasteAssembler();
  private readonly queue: string[] = [];
  private closed = false;

  constructor(
    private readonly app: MercuryApp,
    private readonly options: ChatOptions,
  ) {
    this.sessionId = options.sessionId ?? app.agent.transcriptStore.latestSession("owner", "cli");
  }

  /** Resolves when the user exits (or input ends and the last task finished). */
  async start(): Promise<void> {
    const unsubscribe = this.app.bus.subscribe(
      createTerminalRenderer(
        {
          text: (chunk) => this.options.output.write(chunk),
          info: (line) => this.options.errorOutput.write(`${line}\n`),
        },
        { colors: this.options.colors, showReceipts: this.app.config.memory.showReceipts },
      ),
    );
    const unsubscribeApprovals = this.app.bus.subscribe((event) => this.onApprovalEvent(event));
    const readline = createInterface({
      input: this.options.input,
      output: this.options.output,
      terminal: this.options.interactive,
      prompt: "› ",
    });
    this.readline = readline;
    if (this.options.interactive) {
      this.options.output.write(enableBracketedPaste);
      const primary = this.app.chain.describe()[0];
      this.info(
        `Mercury — ${primary?.provider}/${primary?.model}. /help for commands, Ctrl+C to stop, twice to exit.`,
      );
      readline.prompt();
    }
    const finished = new Promise<void>((resolve) => {
      readline.on("close", () => {
        this.closed = true;
        resolve();
      });
    });
    readline.on("line", (line) => this.onLine(line));
    readline.on("SIGINT", () => this.onInterrupt());
    await finished;
    while (this.running || this.queue.length > 0) {
      if (this.running) await this.running.done;
      else this.startNextQueued();
    }
    await this.options.drain?.();
    if (this.options.interactive) this.options.output.write(disableBracketedPaste);
    unsubscribe();
    unsubscribeApprovals();
  }

  /** An approval for the terminal's owner: the next line answers it (once / session / always / deny). */
  private onApprovalEvent(event: AgentEvent): void {
    if (event.type !== "approval-request" || event.userKey !== "owner") return;
    this.info("  answer: y = once, s = this session, a = always, n = deny");
    this.pending = {
      prompt: event.summary,
      resolve: (answer) => {
        const decision = approvalAnswers[answer.toLowerCase()];
        if (!decision) {
          this.info(`"${answer}" is not an answer; treating it as deny. Use y, s, a or n.`);
        }
        try {
          this.app.approvals.answer(event.approvalId, decision ?? "deny", "owner");
        } catch (error) {
          this.info(`could not record the answer: ${error instanceof Error ? error.message : String(error)}`);
        }
      },
    };
  }

  private info(line: string): void {
    this.options.errorOutput.write(`${line}\n`);
  }

  private onInterrupt(): void {
    if (this.running) {
      this.running.controller.abort(new Error("stopped with Ctrl+C"));
      this.info("stopping… (Ctrl+C again to exit)");
      this.lastInterruptAt = Date.now();
      return;
    }
    if (Date.now() - this.lastInterruptAt < 2000) {
      this.readline?.close();
      return;
    }
    this.lastInterruptAt = Date.now();
    this.info("(Ctrl+C again to exit)");
    this.readline?.prompt();
  }

  private onLine(raw: string): void {
    const message = this.paste.push(raw);
    if (message === null) return;
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
        this.readline?.prompt();
      });
      return;
    }
    const text = message.startsWith("//") ? message.slice(1) : message;
    if (text.trim() === "") {
      this.readline?.prompt();
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
    const done = this.app.agent
      .run({
        userKey: "owner",
        channel: "cli",
        ...(this.sessionId ? { sessionId: this.sessionId } : {}),
        input: text,
        cwd: this.options.cwd,
        signal: controller.signal,
        authorizerFor: this.options.authorizerFor,
        askUser: (question, choices) => this.ask(question, choices),
      })
      .then((report) => {
        this.sessionId = report.sessionId;
        return report;
      })
      .catch((error: unknown) => {
        this.info(`task failed to start: ${this.app.redactor.redact(String(error))}`);
        return null;
      })
      .finally(() => {
        this.running = null;
        if (this.queue.length > 0) this.startNextQueued();
        else if (!this.closed) this.readline?.prompt();
      });
    this.running = { controller, done };
  }

  /** Asks the person at the terminal; the next line they type is the answer. */
  ask(question: string, choices: string[] = []): Promise<string> {
    return new Promise((resolve) => {
      this.pending = { prompt: question, resolve };
      this.info(`? ${question}${choices.length > 0 ? ` [${choices.join(" / ")}]` : ""}`);
    });
  }

  private async runSlashCommand(name: string, argument: string): Promise<void> {
    switch (name) {
      case "/help":
        for (const [command, text] of Object.entries(slashCommandHelp))
          this.info(`${command.padEnd(10)} ${text}`);
        break;
      case "/skills":
        for (const line of skillsSlashCommand(this.app.skills, argument, this.options.cwd)) this.info(line);
        break;
      case "/new":
        if (this.running) this.running.controller.abort(new Error("new session"));
        this.sessionId = this.app.agent.transcriptStore.createSession("owner", "cli");
        this.info(`new session ${this.sessionId}`);
        break;
      case "/stop":
        if (this.running) this.running.controller.abort(new Error("stopped with /stop"));
        else this.info("nothing is running");
        break;
      case "/status": {
        const primary = this.app.chain.describe()[0];
        this.info(
          [
            `provider: ${primary?.provider} (${primary?.model}); fallbacks: ${
              this.app.chain
                .describe()
                .slice(1)
                .map((entry) => entry.provider)
                .join(", ") || "none"
            }`,
            `session: ${this.sessionId ?? "(new on first message)"}`,
            `task: ${this.running ? "running" : "idle"}`,
            this.allowAllLine(),
            this.budgetLine(),
          ].join("\n"),
        );
        break;
      }
      case "/budget":
        this.info(this.budgetLine());
        break;
      case "/memory":
        await this.showMemory(argument);
        break;
      case "/permissions":
        this.permissions(argument);
        break;
      case "/exit":
      case "/quit":
        if (this.running) this.running.controller.abort(new Error("exit"));
        this.readline?.close();
        return;
      default:
        this.info(`unknown command ${name}; /help lists them`);
    }
    if (!this.running) this.readline?.prompt();
  }

  private allowAllLine(): string {
    if (!this.sessionId) return "permissions: ask (allow-all off)";
    const status = this.app.approvals.allowAllStatus(this.sessionId);
    return status.active && status.until
      ? `permissions: ALLOW-ALL until ${status.until.toISOString()} (hardline and secret paths still refused; /permissions ask to revoke)`
      : "permissions: ask (allow-all off)";
  }

  /** `/permissions`, `/permissions allow-all [minutes]`, `/permissions ask` (revoke). */
  private permissions(argument: string): void {
    const [action = "", minutesText] = argument.split(/\s+/);
    if (action === "") {
      this.info(this.allowAllLine());
      return;
    }
    if (!this.sessionId) this.sessionId = this.app.agent.transcriptStore.createSession("owner", "cli");
    if (action === "allow-all") {
      const minutes = minutesText ? Number(minutesText) : this.app.config.permissions.allowAllMinutes;
      const { until } = this.app.approvals.setAllowAll(this.sessionId, minutes, "owner");
      this.info(
        `allow-all for this session until ${until.toISOString()}; hardline commands and secret paths are still refused`,
      );
    } else if (action === "ask") {
      this.info(
        this.app.approvals.revokeAllowAll(this.sessionId, "owner")
          ? "allow-all revoked: actions ask again"
          : "allow-all was not on",
      );
    } else {
      this.info("usage: /permissions [allow-all [minutes] | ask]");
    }
  }

  /** `/memory` lists recent memories; `/memory <query>` searches them. */
  private async showMemory(query: string): Promise<void> {
    const memory = this.app.memory;
    if (!memory) {
      this.info("memory is disabled (memory.enabled: false in config.yaml)");
      return;
    }
    const views =
      query.trim() === ""
        ? memory.list({ userKey: "owner", limit: 10 })
        : (await memory.search({ userKey: "owner", query, limit: 10 })).map((result) => result.memory);
    if (views.length === 0) {
      this.info(query ? `no memory matches "${query}"` : "no memories yet");
      return;
    }
    for (const view of views)
      this.info(
        `#${view.id} [${view.kind}] ${view.text} (confidence ${view.confidence.toFixed(2)}, ${view.tier})`,
      );
    this.info("details: mercury memory show <id>; history: mercury memory history <id>");
  }

  private budgetLine(): string {
    const today = this.app.agent.usage.today();
    const { dailyTokens, dailyUsd } = this.app.config.budget;
    return `budget today: ${today.tokens} tokens${dailyTokens !== null ? ` of ${dailyTokens}` : ""}, $${today.costUsd.toFixed(4)}${dailyUsd !== null ? ` of $${dailyUsd}` : ""}`;
  }
}

export type { AgentEvent };
