import { createInterface, type Interface } from "node:readline";
import type { AgentEvent } from "../../agent/events.js";
import type { TaskIdentity, TaskReport } from "../../agent/runtime.js";
import type { MercuryApp } from "../../app/container.js";
import { buildProviders, defaultModelFactory } from "../../model/providers.js";
import { skillsSlashCommand } from "../../skills/slash-command.js";
import type { AuthorizationRequest, AuthorizationResult } from "../../tools/types.js";
import { createChatRenderer } from "./chat-renderer.js";
import { disableBracketedPaste, enableBracketedPaste } from "./paste.js";
import { PasteInput } from "./paste-input.js";
import { relativeTime } from "./relative-time.js";
import { createTerminalRenderer } from "./renderer.js";
import { ChatScreen } from "./screen.js";
import { approvalAnswers, parseSlashCommand, slashCommandHelp } from "./slash-commands.js";
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
  private readonly paste: PasteInput;
  /** The interactive terminal (prompt redraw, spinner); null when input is piped. */
  private screen: ChatScreen | null = null;
  private readonly queue: string[] = [];
  private closed = false;

  constructor(
    private readonly app: MercuryApp,
    private readonly options: ChatOptions,
  ) {
    this.sessionId = options.sessionId ?? app.agent.transcriptStore.latestSession("owner", "cli");
    this.paste = new PasteInput({ isTTY: options.interactive });
  }

  /** Resolves when the user exits (or input ends and the last task finished). */
  async start(): Promise<void> {
    const input = this.options.input as NodeJS.ReadableStream & { setRawMode?(raw: boolean): void };
    // Bracketed paste markers must be read before readline's key decoder sees them (see PasteInput),
    // so readline reads from the paste filter; raw mode is set on the real terminal here because
    // readline can only set it on its own input.
    if (this.options.interactive) input.setRawMode?.(true);
    input.pipe(this.paste);
    const readline = createInterface({
      input: this.paste,
      output: this.options.output,
      terminal: this.options.interactive,
      prompt: "› ",
    });
    this.readline = readline;
    const columns = (this.options.output as NodeJS.WritableStream & { columns?: number }).columns ?? 80;
    const screen = this.options.interactive
      ? new ChatScreen(readline, this.options.output, this.options.colors)
      : null;
    this.screen = screen;
    const unsubscribe = this.app.bus.subscribe(
      screen
        ? createChatRenderer(screen, {
            colors: this.options.colors,
            showReceipts: this.app.config.memory.showReceipts,
            width: columns,
          })
        : createTerminalRenderer(
            {
              text: (chunk) => this.options.output.write(chunk),
              info: (line) => this.options.errorOutput.write(`${line}\n`),
            },
            { colors: this.options.colors, showReceipts: this.app.config.memory.showReceipts },
          ),
    );
    const unsubscribeApprovals = this.app.bus.subscribe((event) => this.onApprovalEvent(event));
    if (this.options.interactive) {
      this.options.output.write(enableBracketedPaste);
      const primary = this.app.chain.describe()[0];
      this.info(
        `Mercury — ${primary?.provider}/${primary?.model}. /help for commands, Ctrl+C to stop, twice to exit.`,
      );
    }
    const finished = new Promise<void>((resolve) => {
      readline.on("close", () => {
        this.closed = true;
        screen?.stop();
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
    if (this.options.interactive) {
      this.options.output.write(disableBracketedPaste);
      input.setRawMode?.(false);
    }
    input.unpipe(this.paste);
    unsubscribe();
    unsubscribeApprovals();
  }

  /** Shows the prompt again (with the spinner while a task runs); nothing once input has ended. */
  private showPrompt(): void {
    if (this.closed) return;
    if (this.screen) this.screen.redraw();
    else this.readline?.prompt();
  }

  /** An approval for the terminal's owner: the next line answers it (once / session / always / deny). */
  private onApprovalEvent(event: AgentEvent): void {
    if (event.type !== "approval-request" || event.userKey !== "owner") return;
    this.info("  answer: y = once, s = this session, a = always, n = deny");
    this.screen?.asking("approve? y/s/a/n");
    this.pending = {
      prompt: event.summary,
      resolve: (answer) => {
        this.screen?.asking(null);
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
    if (this.screen && !this.closed) this.screen.print(line);
    else this.options.errorOutput.write(`${line}\n`);
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
    this.showPrompt();
  }

  private onLine(raw: string): void {
    const message = this.paste.expand(raw);
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
        else this.showPrompt();
      });
    this.running = { controller, done };
  }

  /** Asks the person at the terminal; the next line they type is the answer. */
  ask(question: string, choices: string[] = []): Promise<string> {
    return new Promise((resolve) => {
      this.pending = {
        prompt: question,
        resolve: (answer) => {
          this.screen?.asking(null);
          resolve(answer);
        },
      };
      this.info(`? ${question}${choices.length > 0 ? ` [${choices.join(" / ")}]` : ""}`);
      this.screen?.asking("answer");
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
        this.switchModel(argument.trim());
        break;
      case "/resume":
        this.resume(argument.trim());
        break;
      case "/exit":
      case "/quit":
        if (this.running) this.running.controller.abort(new Error("exit"));
        this.readline?.close();
        return;
      default:
        this.info(`unknown command ${name}; /help lists them`);
    }
    if (!this.running) this.showPrompt();
  }

  private allowAllLine(): string {
    if (!this.sessionId) return "permissions: ask (allow-all off)";
    const status = this.app.approvals.allowAllStatus(this.sessionId);
    return status.active && status.until
      ? `permissions: ALLOW-ALL until ${status.until.toISOString()} (${relativeTime(status.until)}; hardline and secret paths still refused; /permissions ask to revoke)`
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
        `allow-all for this session until ${until.toISOString()} (${relativeTime(until)}); hardline commands and secret paths are still refused`,
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

  /** `/model` shows the primary model; `/model <id>` switches it for this chat (not saved). */
  private switchModel(model: string): void {
    const primary = this.app.config.chain[0];
    const current = this.app.chain.describe()[0];
    if (model === "") {
      this.info(`model: ${current?.provider}/${current?.model}; /model <id> switches (for this chat only)`);
      return;
    }
    if (!primary) return;
    if (this.running) {
      this.info("a task is running; /stop it (or wait) before switching the model");
      return;
    }
    const [handle] = buildProviders([{ ...primary, model }], this.app.env, defaultModelFactory);
    if (!handle) return;
    if (handle.problem) {
      this.info(`cannot use ${model}: ${handle.problem}`);
      return;
    }
    this.app.chain.replacePrimary(handle);
    this.info(
      `model: ${handle.label}/${model} for this chat (to keep it: mercury config set model ${model})`,
    );
  }

  /** `/resume` lists the recent terminal sessions; `/resume <n>` (or an id prefix) continues one. */
  private resume(choice: string): void {
    const sessions = this.app.agent.transcriptStore.recentSessions("owner", "cli", 10);
    if (choice === "") {
      if (sessions.length === 0) {
        this.info("no earlier sessions");
        return;
      }
      sessions.forEach((session, index) => {
        const first = (session.firstMessage ?? "(no message)").replace(/\s+/g, " ");
        const current = session.id === this.sessionId ? " (current)" : "";
        this.info(
          `${String(index + 1).padStart(2)}. ${relativeTime(session.updatedAt)}${current} — ${first.length > 60 ? `${first.slice(0, 59)}…` : first}`,
        );
      });
      this.info("/resume <number> continues one");
      return;
    }
    const byNumber = /^\d+$/.test(choice) ? sessions[Number(choice) - 1] : undefined;
    const picked = byNumber ?? sessions.find((session) => session.id.startsWith(choice));
    if (!picked) {
      this.info(`no session "${choice}"; /resume lists them`);
      return;
    }
    if (this.running) {
      this.info("a task is running; /stop it (or wait) before switching sessions");
      return;
    }
    this.sessionId = picked.id;
    this.info(`resumed the session from ${relativeTime(picked.updatedAt)} (${picked.id.slice(0, 8)})`);
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
