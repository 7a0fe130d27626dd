import type { AgentEvent } from "../../agent/events.js";
import type { ApprovalDecision } from "../types.js";
import type { ChannelLogger } from "./logger.js";
import { escapeHtml } from "./markdown.js";
import type { ChatQueues } from "./queue.js";
import { describeError, type InlineKeyboard, type MessageSender } from "./transport.js";

type ApprovalRequest = Extract<AgentEvent, { type: "approval-request" }>;
type Question = Extract<AgentEvent, { type: "question" }>;

export interface PendingApproval {
  approvalId: string;
  taskId: string;
  userKey: string;
  chatId: number;
  messageId: number | null;
  html: string;
  timer: NodeJS.Timeout | null;
  settled: boolean;
}

export interface PendingQuestion {
  questionId: string;
  taskId: string;
  userKey: string;
  chatId: number;
  messageId: number | null;
  html: string;
  choices: string[];
  settled: boolean;
}

const DECISION_CODES: Record<string, ApprovalDecision> = { o: "once", s: "session", a: "always", d: "deny" };
const DECISION_WORDS: Record<string, string> = {
  once: "✅ allowed once",
  session: "✅ allowed for this session",
  always: "✅ always allowed",
  deny: "🚫 denied",
  expired: "⌛ expired",
};

export type CallbackAction =
  | { kind: "approval"; token: string; decision: ApprovalDecision }
  | { kind: "question"; token: string; choice: number };

/** callback_data is at most 64 bytes, so buttons carry a short token, never the approval id itself. */
export function parseCallbackData(data: string): CallbackAction | null {
  const approval = /^a:([osad]):([a-z0-9]+)$/.exec(data);
  if (approval) {
    const decision = DECISION_CODES[approval[1] ?? ""];
    return decision === undefined ? null : { kind: "approval", token: approval[2] ?? "", decision };
  }
  const question = /^q:(\d+):([a-z0-9]+)$/.exec(data);
  if (question) return { kind: "question", token: question[2] ?? "", choice: Number(question[1]) };
  return null;
}

/** Approval and ask_user prompts as inline buttons, removed when answered, resolved or expired. */
export class Prompts {
  private readonly approvals = new Map<string, PendingApproval>();
  private readonly approvalTokens = new Map<string, string>();
  private readonly questions = new Map<string, PendingQuestion>();
  private readonly freeText = new Map<string, PendingQuestion>();
  private counter = 0;

  constructor(
    private readonly sender: MessageSender,
    private readonly queues: ChatQueues,
    private readonly logger: ChannelLogger,
  ) {}

  askApproval(chatId: number, event: ApprovalRequest): void {
    if (this.approvalTokens.has(event.approvalId)) return;
    const token = this.nextToken();
    const expires = new Date(event.expiresAt);
    const html =
      `🔐 <b>Approval needed</b>${subagentSuffix(event.taskId)}\n${escapeHtml(event.summary)}\n` +
      `Rule: <code>${escapeHtml(event.rule)}</code> · expires ${escapeHtml(expires.toISOString().slice(11, 16))} UTC`;
    const pending: PendingApproval = {
      approvalId: event.approvalId,
      taskId: event.taskId,
      userKey: event.userKey,
      chatId,
      messageId: null,
      html,
      timer: null,
      settled: false,
    };
    this.approvals.set(token, pending);
    this.approvalTokens.set(event.approvalId, token);
    const keyboard: InlineKeyboard = {
      inline_keyboard: [
        [
          { text: "Allow once", callback_data: `a:o:${token}` },
          { text: "This session", callback_data: `a:s:${token}` },
        ],
        [
          { text: "Always", callback_data: `a:a:${token}` },
          { text: "Deny", callback_data: `a:d:${token}` },
        ],
      ],
    };
    void this.queues.run(chatId, "approval request", async () => {
      pending.messageId = await this.sender.sendHtml(chatId, html, keyboard);
    });
    // The agent also reports expiry (approval-resolved); this timer makes it visible even if it doesn't.
    const untilExpiry = expires.getTime() - Date.now();
    // setTimeout fires at once beyond 2^31-1 ms; an expiry that far away has no local timer.
    if (Number.isFinite(untilExpiry) && untilExpiry < 2 ** 31 - 1) {
      pending.timer = setTimeout(
        () => this.settleApproval(event.approvalId, "expired", "timeout"),
        Math.max(0, untilExpiry),
      );
    }
  }

  approval(token: string): PendingApproval | null {
    const found = this.approvals.get(token);
    return found === undefined || found.settled ? null : found;
  }

  /** Removes the buttons and states the decision; safe to call twice (answer, then the resolved event). */
  settleApproval(approvalId: string, decision: string, by: string): void {
    const token = this.approvalTokens.get(approvalId);
    const pending = token === undefined ? undefined : this.approvals.get(token);
    if (pending === undefined || pending.settled) return;
    pending.settled = true;
    if (pending.timer !== null) clearTimeout(pending.timer);
    const word = DECISION_WORDS[decision] ?? escapeHtml(decision);
    void this.queues.run(pending.chatId, "approval cleanup", async () => {
      if (pending.messageId === null) return;
      await this.sender.removeButtons(pending.chatId, pending.messageId);
      await this.sender.editHtml(
        pending.chatId,
        pending.messageId,
        `${pending.html}\n→ ${word} (${escapeHtml(by)})`,
      );
    });
  }

  ask(chatId: number, event: Question): void {
    const token = this.nextToken();
    const choices = event.choices;
    const hint = choices.length === 0 ? "\n<i>Reply with your answer.</i>" : "";
    const html = `❓ ${escapeHtml(event.question)}${subagentSuffix(event.taskId)}${hint}`;
    const pending: PendingQuestion = {
      questionId: event.questionId,
      taskId: event.taskId,
      userKey: event.userKey,
      chatId,
      messageId: null,
      html,
      choices,
      settled: false,
    };
    this.questions.set(token, pending);
    if (choices.length === 0) this.freeText.set(event.userKey, pending);
    const keyboard: InlineKeyboard | undefined =
      choices.length === 0
        ? undefined
        : {
            inline_keyboard: choices.map((choice, index) => [
              { text: choice, callback_data: `q:${index}:${token}` },
            ]),
          };
    void this.queues.run(chatId, "question", async () => {
      pending.messageId = await this.sender.sendHtml(chatId, html, keyboard);
    });
  }

  question(token: string): PendingQuestion | null {
    const found = this.questions.get(token);
    return found === undefined || found.settled ? null : found;
  }

  /** The open free-text question of this user, if any: their next message answers it. */
  takeFreeTextQuestion(userKey: string): PendingQuestion | null {
    const found = this.freeText.get(userKey);
    this.freeText.delete(userKey);
    return found === undefined || found.settled ? null : found;
  }

  settleQuestion(pending: PendingQuestion, answer: string): void {
    if (pending.settled) return;
    pending.settled = true;
    if (this.freeText.get(pending.userKey) === pending) this.freeText.delete(pending.userKey);
    void this.queues.run(pending.chatId, "question cleanup", async () => {
      if (pending.messageId === null) return;
      if (pending.choices.length > 0) await this.sender.removeButtons(pending.chatId, pending.messageId);
      await this.sender.editHtml(
        pending.chatId,
        pending.messageId,
        `${pending.html}\n→ ${escapeHtml(answer)}`,
      );
    });
  }

  /** A task that ended cannot take answers any more: clear its buttons. */
  endTask(taskId: string): void {
    for (const pending of this.questions.values()) {
      if (pending.taskId === taskId && !pending.settled) this.settleQuestion(pending, "(task ended)");
    }
    for (const pending of this.approvals.values()) {
      if (pending.taskId === taskId && !pending.settled)
        this.settleApproval(pending.approvalId, "task ended", "agent");
    }
  }

  close(): void {
    for (const pending of this.approvals.values()) if (pending.timer !== null) clearTimeout(pending.timer);
  }

  /** Best effort for a button whose prompt this process no longer knows (restart, already answered). */
  async removeStaleButtons(chatId: number, messageId: number): Promise<void> {
    try {
      await this.sender.removeButtons(chatId, messageId);
    } catch (error) {
      this.logger.warn({ chatId, messageId, error: describeError(error) }, "could not remove stale buttons");
    }
  }

  private nextToken(): string {
    this.counter += 1;
    return `${Date.now().toString(36)}${this.counter.toString(36)}`;
  }
}

/** " (sub-agent child-1)" for a sub-agent's prompt, so the person knows which agent is asking. */
function subagentSuffix(taskId: string): string {
  const slash = taskId.indexOf("/child-");
  return slash < 0 ? "" : ` <i>(sub-agent ${escapeHtml(taskId.slice(slash + 1))})</i>`;
}
