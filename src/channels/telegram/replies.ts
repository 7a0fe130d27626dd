import { GrammyError, HttpError } from "grammy";
import { passed } from "../../agent/completion/test-summary.js";
import type { AgentEvent } from "../../agent/events.js";
import { endCauseLabel } from "../end-cause.js";
import type { DeliveryRecord, DeliveryStore } from "./deliveries.js";
import type { ChannelLogger } from "./logger.js";
import type { ChatQueues } from "./queue.js";
import { splitMarkdown } from "./split.js";
import { describeError, type MessageSender } from "./transport.js";

type TaskEnd = Extract<AgentEvent, { type: "task-end" }>;

interface TaskStream {
  chatId: number;
  taskId: string;
  /** Everything streamed so far. */
  full: string;
  /** Parts already cut off at a 4,096 boundary; their messages are final. */
  frozen: { text: string; messageId: number }[];
  /** The part still growing, shown in the live message. */
  tail: string;
  shown: string;
  liveMessageId: number | null;
  timer: NodeJS.Timeout | null;
  receipts: string[];
}

export interface StreamOptions {
  sender: MessageSender;
  deliveries: DeliveryStore;
  queues: ChatQueues;
  logger: ChannelLogger;
  /** Minimum time between two edits (or sends) of streamed text in one chat. */
  editIntervalMs: number;
  messageLimit: number;
  /** First wait before a reply part that failed to send is sent again (doubling; default 5 s). */
  retryBaseMs?: number;
}

/** Sends of one reply part (each after the transport's own retries) before it is reported undelivered. */
export const maxPartAttempts = 5;
const defaultPartRetryMs = 5000;
const maxPartRetryMs = 5 * 60_000;

/** A failure worth another send later: rate limits, server errors, the network; not a refusal. */
function isTransient(error: unknown): boolean {
  if (error instanceof HttpError) return true;
  if (error instanceof GrammyError) return error.error_code === 429 || error.error_code >= 500;
  return false;
}

/**
 * Streams a task's text into Telegram: one message, edited at a bounded rate per chat, cut into
 * further messages at the limit; the final text is delivered through a delivery record.
 */
export class ReplyStreams {
  private readonly streams = new Map<string, TaskStream>();
  private readonly lastWriteAt = new Map<number, number>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();

  constructor(private readonly options: StreamOptions) {}

  delta(chatId: number, taskId: string, text: string): void {
    const stream = this.stream(chatId, taskId);
    stream.full += text;
    stream.tail += text;
    this.schedule(stream);
  }

  receipt(chatId: number, taskId: string, line: string): void {
    this.stream(chatId, taskId).receipts.push(line);
  }

  end(chatId: number, event: TaskEnd): Promise<void> {
    const stream = this.streams.get(event.taskId) ?? this.stream(chatId, event.taskId);
    this.streams.delete(event.taskId);
    if (stream.timer !== null) clearTimeout(stream.timer);
    stream.timer = null;
    return this.options.queues.run(chatId, "final reply", () => this.finish(stream, event));
  }

  /** Sends records left pending by a crash; each is sent once. */
  async deliverPending(): Promise<number> {
    const pending = this.options.deliveries.pending();
    await Promise.all(
      pending.map((record) =>
        this.options.queues.run(record.chatId, "pending delivery", () => this.deliver(record)),
      ),
    );
    return pending.length;
  }

  close(): void {
    for (const stream of this.streams.values()) if (stream.timer !== null) clearTimeout(stream.timer);
    // Parts still pending keep their records: the next start sends them.
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
  }

  private stream(chatId: number, taskId: string): TaskStream {
    let stream = this.streams.get(taskId);
    if (stream === undefined) {
      stream = {
        chatId,
        taskId,
        full: "",
        frozen: [],
        tail: "",
        shown: "",
        liveMessageId: null,
        timer: null,
        receipts: [],
      };
      this.streams.set(taskId, stream);
    }
    return stream;
  }

  private schedule(stream: TaskStream, delayMs?: number): void {
    if (stream.timer !== null) return;
    const wait = delayMs ?? this.waitFor(stream.chatId);
    stream.timer = setTimeout(() => {
      stream.timer = null;
      void this.options.queues.run(stream.chatId, "streamed reply", () => this.flush(stream));
    }, wait);
  }

  private waitFor(chatId: number): number {
    const last = this.lastWriteAt.get(chatId);
    return last === undefined ? 0 : Math.max(0, last + this.options.editIntervalMs - Date.now());
  }

  private async flush(stream: TaskStream): Promise<void> {
    if (!this.streams.has(stream.taskId)) return;
    const wait = this.waitFor(stream.chatId);
    if (wait > 0) {
      this.schedule(stream, wait);
      return;
    }
    if (stream.tail.length > this.options.messageLimit) await this.freeze(stream);
    if (stream.tail.trim() === "" || stream.tail === stream.shown) return;
    await this.write(stream, stream.tail);
  }

  /** Cuts the full parts off the live text: they become final messages with sent delivery records. */
  private async freeze(stream: TaskStream): Promise<void> {
    // Deltas keep arriving while the parts are written: cut a snapshot, keep what came after it.
    const snapshot = stream.tail;
    const parts = splitMarkdown(snapshot, this.options.messageLimit);
    for (const part of parts.slice(0, -1)) {
      const messageId = await this.write(stream, part);
      const index = stream.frozen.length;
      stream.frozen.push({ text: part, messageId });
      stream.liveMessageId = null;
      stream.shown = "";
      const record = this.options.deliveries.record({
        chatId: stream.chatId,
        taskId: stream.taskId,
        part: index,
        text: part,
        messageId,
      });
      this.options.deliveries.markSent(record.id, messageId);
    }
    stream.tail = (parts.at(-1) ?? "") + stream.tail.slice(snapshot.length);
  }

  private async write(stream: TaskStream, text: string): Promise<number> {
    const { sender } = this.options;
    try {
      if (stream.liveMessageId === null) stream.liveMessageId = await sender.send(stream.chatId, text);
      else await sender.edit(stream.chatId, stream.liveMessageId, text);
      stream.shown = text;
      return stream.liveMessageId;
    } finally {
      this.lastWriteAt.set(stream.chatId, Date.now());
    }
  }

  private async finish(stream: TaskStream, event: TaskEnd): Promise<void> {
    const body = event.text.trim() !== "" ? event.text : stream.full;
    const footer = [...stream.receipts, ...footerLines(event)].join("\n");
    const final = [body.trimEnd(), footer].filter((piece) => piece.trim() !== "").join("\n\n");
    const text = final === "" ? "(finished without a reply)" : final;
    const limit = this.options.messageLimit;
    const parts = (
      stream.full !== "" && text.startsWith(stream.full)
        ? [
            ...stream.frozen.map((part) => part.text),
            ...splitMarkdown(stream.tail + text.slice(stream.full.length), limit),
          ]
        : splitMarkdown(text, limit)
    ).filter((part) => part.trim() !== "");
    const messageIds = [...stream.frozen.map((part) => part.messageId), stream.liveMessageId];
    for (const [index, part] of parts.entries()) {
      const record = this.options.deliveries.record({
        chatId: stream.chatId,
        taskId: stream.taskId,
        part: index,
        text: part,
        messageId: messageIds[index] ?? null,
      });
      if (record.status === "pending") await this.deliver(record);
    }
  }

  private async deliver(record: DeliveryRecord): Promise<void> {
    const { deliveries, sender, logger } = this.options;
    // Sent, given up, or being sent by another sender since it was read: not this sender's to send.
    if (!deliveries.claim(record.id, record.attempts)) return;
    const attempt = record.attempts + 1;
    try {
      let messageId = record.messageId;
      if (messageId !== null) {
        try {
          await sender.edit(record.chatId, messageId, record.text);
        } catch (error) {
          logger.warn(
            { chatId: record.chatId, error: describeError(error) },
            "editing the reply failed; sending it anew",
          );
          messageId = null;
        }
      }
      if (messageId === null) messageId = await sender.send(record.chatId, record.text);
      deliveries.markSent(record.id, messageId);
      this.lastWriteAt.set(record.chatId, Date.now());
    } catch (error) {
      const cause = describeError(error);
      // The transport already retried this call; an outage longer than that is retried here while
      // the bot runs (before session 9 only the next start did), a refusal (4xx) is final.
      const final = attempt >= maxPartAttempts || !isTransient(error);
      deliveries.markFailed(record.id, cause, final);
      if (!final) {
        logger.warn(
          { chatId: record.chatId, taskId: record.taskId, part: record.part, attempt, error: cause },
          "telegram reply not delivered yet; retrying",
        );
        this.retryLater(record, attempt);
        return;
      }
      logger.error(
        { chatId: record.chatId, taskId: record.taskId, part: record.part, error: cause },
        "telegram reply could not be delivered",
      );
      await this.tellUser(record, cause);
    }
  }

  /** Sends the part again after a backoff, if it is still pending then (the claim decides who sends). */
  private retryLater(record: DeliveryRecord, attempt: number): void {
    const base = this.options.retryBaseMs ?? defaultPartRetryMs;
    const delay = Math.min(maxPartRetryMs, base * 2 ** (attempt - 1));
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      void this.options.queues.run(record.chatId, "reply retry", async () => {
        const fresh = this.options.deliveries.get(record.id);
        if (fresh?.status === "pending") await this.deliver(fresh);
      });
    }, delay);
    // A one-shot pending pass (pending.ts) does not wait for it; the next start sends what is left.
    timer.unref();
    this.retryTimers.add(timer);
  }

  private async tellUser(record: DeliveryRecord, cause: string): Promise<void> {
    try {
      await this.options.sender.sendHtml(
        record.chatId,
        `⚠️ Part ${record.part + 1} of my reply could not be delivered (${cause}). Ask me to repeat it.`,
      );
    } catch (error) {
      this.options.logger.error(
        { chatId: record.chatId, error: describeError(error) },
        "telegram could not report a failed delivery to the user either",
      );
    }
  }
}

function footerLines(event: TaskEnd): string[] {
  const lines: string[] = [];
  if (event.filesChanged.length > 0) {
    lines.push(
      `Files: ${event.filesChanged.map((file) => `${file.path} +${file.added} −${file.removed}`).join(", ")}`,
    );
  }
  const verified = event.verification.filter((record) => passed(record));
  if (event.outcome === "completed" && verified.length > 0) {
    lines.push(`✅ Completed · verified: ${verified.map((record) => `\`${record.command}\``).join(", ")}`);
  }
  const reason = event.reason === undefined ? "" : `: ${event.reason}`;
  // A note beside an answer (a check that failed or never ran, an unfinished earlier task, no checks
  // here) is part of the truth of the answer: the chat shows it, so Telegram does too.
  if (event.outcome === "completed" && verified.length === 0 && event.reason)
    lines.push(`✅ Completed (${event.reason})`);
  if (event.outcome === "responded" && event.reason) lines.push(`⚠️ ${event.reason}`);
  if (event.outcome === "paused")
    lines.push(`⏸ Paused (${event.endCause})${reason}. Send "continue" to resume.`);
  if (event.outcome === "failed") lines.push(`❌ Failed (${endCauseLabel(event)})${reason}`);
  if (event.outcome === "cancelled") lines.push(`⏹ Cancelled${reason}`);
  return lines;
}
