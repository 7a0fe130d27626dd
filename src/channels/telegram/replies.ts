import { passed } from "../../agent/completion/test-summary.js";
import type { AgentEvent } from "../../agent/events.js";
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
}

/**
 * Streams a task's text into Telegram: one message, edited at a bounded rate per chat, cut into
 * further messages at the limit; the final text is delivered through a delivery record.
 */
export class ReplyStreams {
  private readonly streams = new Map<string, TaskStream>();
  private readonly lastWriteAt = new Map<number, number>();

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
    deliveries.beginAttempt(record.id);
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
      deliveries.markFailed(record.id, cause, true);
      logger.error(
        { chatId: record.chatId, taskId: record.taskId, part: record.part, error: cause },
        "telegram reply could not be delivered",
      );
      await this.tellUser(record, cause);
    }
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
  if (event.outcome === "failed") lines.push(`❌ Failed (${event.endCause})${reason}`);
  if (event.outcome === "cancelled") lines.push(`⏹ Cancelled${reason}`);
  return lines;
}
