import type { AgentEvent } from "../../agent/events.js";
import { subagentLabel } from "../cli/subagent-events.js";
import { endCauseLabel } from "../end-cause.js";
import type { ChannelLogger } from "./logger.js";
import type { Prompts } from "./prompts.js";
import type { ChatQueues } from "./queue.js";
import type { ReplyStreams } from "./replies.js";
import type { TelegramState } from "./state.js";
import { describeError, type MessageSender } from "./transport.js";

const RECEIPT_WORDS: Record<string, string> = {
  remembered: "🧠 Remembered",
  updated: "🧠 Updated",
  confirmed: "🧠 Confirmed",
  failed: "🧠 Could not remember",
  forgotten: "🧠 Forgotten",
};

/**
 * Decides which chat an agent event belongs to. A task belongs to Telegram when it was submitted
 * here (bound by task id, persisted) or when its user exists only here (`telegram:<id>`); the
 * owner's CLI tasks never leak into the chat, and a member's approval never goes to the owner.
 */
export class EventRouter {
  private readonly pendingSubmits = new Map<
    string,
    { chatId: number; count: number; privateChat: number | undefined }
  >();
  private readonly taskChats = new Map<string, number>();
  /** Tasks started in an enabled group: their private traffic goes to the sender's own chat. */
  private readonly privateChats = new Map<string, number>();
  /** Tasks seen and found not to be ours (the owner's terminal work): no database lookup per event. */
  private readonly foreign = new Set<string>();

  constructor(
    private readonly deps: {
      state: TelegramState;
      streams: ReplyStreams;
      prompts: Prompts;
      queues: ChatQueues;
      sender: MessageSender;
      logger: ChannelLogger;
    },
  ) {}

  /** Events may arrive before submit() resolves: a task of this user starting meanwhile is ours. */
  beginSubmit(userKey: string, chatId: number, privateChat?: number): () => void {
    const entry = this.pendingSubmits.get(userKey) ?? { chatId, count: 0, privateChat };
    entry.chatId = chatId;
    entry.privateChat = privateChat;
    entry.count += 1;
    this.pendingSubmits.set(userKey, entry);
    return () => {
      entry.count -= 1;
      if (entry.count <= 0 && this.pendingSubmits.get(userKey) === entry) this.pendingSubmits.delete(userKey);
    };
  }

  bindTask(taskId: string, chatId: number, userKey: string): void {
    this.foreign.delete(taskId);
    this.taskChats.set(taskId, chatId);
    this.deps.state.bindTask(taskId, chatId, userKey, new Date().toISOString());
  }

  bindPrivateChat(taskId: string, userId: number): void {
    this.privateChats.set(taskId, userId);
  }

  /**
   * Where private traffic (approvals, questions, memory receipts) of a task goes: its own chat when
   * that is private; for a group task, the sender's private chat, or nowhere (an unanswered approval
   * expires and is refused) — never the group.
   */
  private privateChatFor(taskId: string, chatId: number): number | null {
    if (chatId > 0) return chatId;
    return this.privateChats.get(taskId) ?? null;
  }

  chatFor(event: AgentEvent): number | null {
    const cached = this.taskChats.get(event.taskId);
    if (cached !== undefined) return cached;
    if (this.foreign.has(event.taskId)) {
      if (event.type === "task-end") this.foreign.delete(event.taskId);
      return null;
    }
    const known = this.deps.state.taskChat(event.taskId)?.chatId;
    if (known !== undefined) {
      this.taskChats.set(event.taskId, known);
      return known;
    }
    const pending = this.pendingSubmits.get(event.userKey);
    if (pending !== undefined) {
      this.bindTask(event.taskId, pending.chatId, event.userKey);
      if (pending.privateChat !== undefined) this.bindPrivateChat(event.taskId, pending.privateChat);
      return pending.chatId;
    }
    const member = /^telegram:(\d+)$/.exec(event.userKey);
    if (member) {
      const chatId = Number(member[1]);
      if (Number.isSafeInteger(chatId)) {
        this.bindTask(event.taskId, chatId, event.userKey);
        return chatId;
      }
    }
    // Remembered as foreign so a later Telegram submit of the same user does not adopt its events.
    if (event.type !== "task-end") this.foreign.add(event.taskId);
    return null;
  }

  handle(event: AgentEvent): void {
    const label = subagentLabel(event);
    if (label !== null) {
      this.handleSubagent(event, label);
      return;
    }
    const chatId = this.chatFor(event);
    if (chatId === null) return;
    const { streams, prompts } = this.deps;
    switch (event.type) {
      case "text-delta":
        streams.delta(chatId, event.taskId, event.text);
        return;
      case "approval-request": {
        const own = this.privateChatFor(event.taskId, chatId);
        if (own === null)
          this.deps.logger.warn({ taskId: event.taskId }, "approval of a group task not sent to the group");
        else prompts.askApproval(own, event);
        return;
      }
      case "approval-resolved":
        prompts.settleApproval(event.approvalId, event.decision, event.by);
        return;
      case "question": {
        const own = this.privateChatFor(event.taskId, chatId);
        if (own !== null) prompts.ask(own, event);
        return;
      }
      case "memory-receipt": {
        const own = this.privateChatFor(event.taskId, chatId);
        if (own === chatId)
          streams.receipt(chatId, event.taskId, `${RECEIPT_WORDS[event.kind] ?? event.kind}: ${event.text}`);
        else if (own !== null) this.notify(own, `${RECEIPT_WORDS[event.kind] ?? event.kind}: ${event.text}`);
        return;
      }
      case "notice":
        if (event.level === "error") this.notify(chatId, `⚠️ ${event.message}`);
        return;
      case "task-end":
        this.privateChats.delete(event.taskId);
        prompts.endTask(event.taskId);
        void streams.end(chatId, event);
        return;
      default:
        return;
    }
  }

  /**
   * A sub-agent's events (task id `<parent>/child-N`) go to its parent's chat, labelled. Unlabelled,
   * its text streamed as a second answer and its end posted a full reply footer as if the task had
   * ended twice (or, for the owner, nothing was shown at all and a failed child went unseen). Its
   * text reaches the person through the parent's answer; what needs the person (approvals,
   * questions) and what went wrong (warnings, its end when not a success) is shown with its label.
   */
  private handleSubagent(event: AgentEvent, label: string): void {
    const parentTaskId = event.taskId.slice(0, event.taskId.indexOf("/child-"));
    const chatId = this.chatFor({ ...event, taskId: parentTaskId });
    if (chatId === null) return;
    const { prompts } = this.deps;
    const own = this.privateChatFor(parentTaskId, chatId);
    switch (event.type) {
      case "approval-request":
        if (own === null)
          this.deps.logger.warn({ taskId: event.taskId }, "approval of a group task not sent to the group");
        else prompts.askApproval(own, event);
        return;
      case "approval-resolved":
        prompts.settleApproval(event.approvalId, event.decision, event.by);
        return;
      case "question":
        if (own !== null) prompts.ask(own, event);
        return;
      case "memory-receipt":
        if (own !== null) this.notify(own, `${RECEIPT_WORDS[event.kind] ?? event.kind}: ${event.text}`);
        return;
      case "notice":
        if (event.level !== "info") this.notify(chatId, `⚠️ sub-agent ${label}: ${event.message}`);
        return;
      case "task-end": {
        prompts.endTask(event.taskId);
        const glyph = { completed: "✓", responded: "✓", paused: "⏸", failed: "✗", cancelled: "■" }[
          event.outcome
        ];
        const reason = event.reason ? `: ${event.reason}` : "";
        this.notify(
          chatId,
          `↳ ${glyph} sub-agent ${label} ${event.outcome} (${endCauseLabel(event)})${reason}`,
        );
        return;
      }
      default:
        return;
    }
  }

  private notify(chatId: number, text: string): void {
    void this.deps.queues.run(chatId, "notice", async () => {
      try {
        await this.deps.sender.send(chatId, text);
      } catch (error) {
        this.deps.logger.error({ chatId, error: describeError(error) }, "telegram notice not delivered");
      }
    });
  }
}
