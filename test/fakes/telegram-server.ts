/**
 * A loopback fake of the Telegram Bot API, enough for the real grammY client:
 *   POST {apiRoot}/bot{token}/{method}  getMe, getUpdates (long polling), deleteWebhook, sendMessage,
 *        editMessageText, editMessageReplyMarkup, deleteMessage, answerCallbackQuery, setMyCommands,
 *        sendChatAction, getFile
 *   GET  {apiRoot}/file/bot{token}/{file_path}  file download
 * Tests inject updates (user messages, button presses), read the chat as the user would see it, and
 * script failures: outages (hang or 502), any error for the next N calls of a method (429 with
 * retry_after, 409, ...), and rejection of HTML markup. Markup is validated like Telegram does
 * (allowed tags, balanced, 4,096 visible characters), so a renderer bug is a 400 here too.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { patientDeadline } from "../helpers/patience.js";

export const FAKE_TOKEN = "123456:TEST-token_abc";

export interface RecordedCall {
  method: string;
  payload: Record<string, unknown>;
  at: number;
}

export interface FakeChatMessage {
  chatId: number;
  messageId: number;
  fromBot: boolean;
  text: string;
  parseMode: string | null;
  replyMarkup: { inline_keyboard: { text: string; callback_data: string }[][] } | null;
  edits: number;
}

export interface FakeUser {
  id: number;
  username?: string;
}

interface ScriptedError {
  error_code: number;
  description: string;
  parameters?: { retry_after?: number };
}

interface PendingPoll {
  offset: number;
  response: ServerResponse;
  timer: NodeJS.Timeout;
}

const ALLOWED_TAGS = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "code",
  "pre",
  "a",
  "blockquote",
  "tg-spoiler",
]);

export class FakeTelegramServer {
  readonly calls: RecordedCall[] = [];
  readonly messages: FakeChatMessage[] = [];
  /** When true, every HTML message is refused with 400 "can't parse entities". */
  rejectHtml = false;
  private readonly updates: { update_id: number; [key: string]: unknown }[] = [];
  private readonly polls = new Set<PendingPoll>();
  private readonly hung = new Set<ServerResponse>();
  private readonly failures = new Map<string, ScriptedError[]>();
  private readonly files = new Map<string, { path: string; content: Buffer }>();
  private outageMode: "hang" | "502" | null = null;
  private nextUpdateId = 1;
  private nextMessageId = 1;
  private nextCallbackId = 1;

  private constructor(
    private readonly server: Server,
    readonly apiRoot: string,
    readonly token: string,
  ) {}

  static async start(token = FAKE_TOKEN): Promise<FakeTelegramServer> {
    let instance: FakeTelegramServer | null = null;
    const server = createServer((request, response) => {
      if (instance === null) throw new Error("fake telegram server got a request before it started");
      void instance.route(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    instance = new FakeTelegramServer(server, `http://127.0.0.1:${port}`, token);
    return instance;
  }

  async close(): Promise<void> {
    for (const poll of this.polls) clearTimeout(poll.timer);
    this.polls.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      this.server.close((error) => (error ? reject(error) : resolve())),
    );
  }

  // ---- scripting ----

  /** A user writes to the bot in their private chat (chat id = user id). */
  sendUserMessage(from: FakeUser, text: string, extra: Record<string, unknown> = {}): number {
    const message = {
      message_id: this.nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: from.id, type: "private", first_name: `user${from.id}` },
      from: { id: from.id, is_bot: false, first_name: `user${from.id}`, username: from.username },
      ...(text === "" ? {} : "photo" in extra || "document" in extra ? { caption: text } : { text }),
      ...(text.startsWith("/")
        ? { entities: [{ type: "bot_command", offset: 0, length: text.split(/\s/)[0]?.length ?? 0 }] }
        : {}),
      ...extra,
    };
    return this.pushUpdate({ message });
  }

  /** A user writes in a group, supergroup (negative chat id) where the bot is a member. */
  sendGroupMessage(from: FakeUser, chat: { id: number; type: "group" | "supergroup" }, text: string): number {
    const message = {
      message_id: this.nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat.id, type: chat.type, title: `group${chat.id}` },
      from: { id: from.id, is_bot: false, first_name: `user${from.id}`, username: from.username },
      text,
      ...(text.startsWith("/")
        ? { entities: [{ type: "bot_command", offset: 0, length: text.split(/\s/)[0]?.length ?? 0 }] }
        : {}),
    };
    return this.pushUpdate({ message });
  }

  /** A post in a channel where the bot is an administrator (no sender). */
  sendChannelPost(chatId: number, text: string): number {
    const channel_post = {
      message_id: this.nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chatId, type: "channel", title: `channel${chatId}` },
      text,
    };
    return this.pushUpdate({ channel_post });
  }

  /** A user presses an inline button under one of the bot's messages. */
  pressButton(from: FakeUser, message: FakeChatMessage, data: string): string {
    const id = String(this.nextCallbackId++);
    this.pushUpdate({
      callback_query: {
        id,
        from: { id: from.id, is_bot: false, first_name: `user${from.id}` },
        chat_instance: "fake",
        data,
        message: {
          message_id: message.messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: message.chatId, type: "private", first_name: "chat" },
          text: message.text,
        },
      },
    });
    return id;
  }

  addFile(fileId: string, path: string, content: Buffer): void {
    this.files.set(fileId, { path, content });
  }

  /** The next `times` calls of `method` fail with this error. */
  failNext(method: string, error: ScriptedError, times = 1): void {
    const queue = this.failures.get(method) ?? [];
    for (let index = 0; index < times; index++) queue.push(error);
    this.failures.set(method, queue);
  }

  /** "hang": requests are accepted and never answered (even after the outage ends, like dead TCP). */
  setOutage(mode: "hang" | "502" | null): void {
    this.outageMode = mode;
    if (mode !== null) {
      for (const poll of this.polls) {
        clearTimeout(poll.timer);
        this.hung.add(poll.response);
      }
      this.polls.clear();
    }
  }

  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  chat(chatId: number): FakeChatMessage[] {
    return this.messages.filter((message) => message.chatId === chatId && message.fromBot);
  }

  async waitFor<T>(
    probe: () => T | undefined | null | false,
    timeoutMs = 10_000,
    what = "condition",
  ): Promise<T> {
    const deadline = patientDeadline(timeoutMs);
    for (;;) {
      const value = probe();
      if (value !== undefined && value !== null && value !== false) return value;
      if (Date.now() > deadline) throw new Error(`fake telegram: timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  // ---- HTTP ----

  private pushUpdate(body: Record<string, unknown>): number {
    const update = { update_id: this.nextUpdateId++, ...body };
    this.updates.push(update);
    for (const poll of [...this.polls]) this.answerPoll(poll);
    return update.update_id;
  }

  private answerPoll(poll: PendingPoll): boolean {
    const ready = this.updates.filter((update) => update.update_id >= poll.offset);
    if (ready.length === 0) return false;
    clearTimeout(poll.timer);
    this.polls.delete(poll);
    reply(poll.response, 200, { ok: true, result: ready });
    return true;
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", this.apiRoot);
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (file) {
      const found = [...this.files.values()].find((entry) => entry.path === file[2]);
      if (file[1] !== this.token || found === undefined) {
        response.writeHead(404).end("not found");
        return;
      }
      response.writeHead(200, { "content-length": found.content.length }).end(found.content);
      return;
    }
    const api = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
    const body = await readBody(request);
    if (!api) {
      reply(response, 404, { ok: false, error_code: 404, description: "Not Found" });
      return;
    }
    const method = api[2] ?? "";
    const payload = parsePayload(body);
    this.calls.push({ method, payload, at: Date.now() });
    if (api[1] !== this.token) {
      reply(response, 401, { ok: false, error_code: 401, description: "Unauthorized" });
      return;
    }
    if (this.outageMode === "hang") {
      this.hung.add(response);
      return;
    }
    if (this.outageMode === "502") {
      reply(response, 502, { ok: false, error_code: 502, description: "Bad Gateway" });
      return;
    }
    const scripted = this.failures.get(method)?.shift();
    if (scripted !== undefined) {
      reply(response, scripted.error_code, { ok: false, ...scripted });
      return;
    }
    this.handle(method, payload, response);
  }

  private handle(method: string, payload: Record<string, unknown>, response: ServerResponse): true {
    const ok = (result: unknown) => reply(response, 200, { ok: true, result });
    const bad = (description: string) => reply(response, 400, { ok: false, error_code: 400, description });
    switch (method) {
      case "getMe":
        return ok({ id: 999, is_bot: true, first_name: "Mercury", username: "mercury_test_bot" });
      case "deleteWebhook":
      case "setMyCommands":
      case "sendChatAction":
      case "answerCallbackQuery":
        return ok(true);
      case "getUpdates": {
        const offset = Number(payload.offset ?? 0);
        // Confirming an offset forgets everything before it, as Telegram does.
        for (let index = this.updates.length - 1; index >= 0; index--) {
          if ((this.updates[index]?.update_id ?? 0) < offset) this.updates.splice(index, 1);
        }
        const timeoutSeconds = Number(payload.timeout ?? 0);
        const poll: PendingPoll = {
          offset,
          response,
          timer: setTimeout(() => {
            this.polls.delete(poll);
            reply(response, 200, { ok: true, result: [] });
          }, timeoutSeconds * 1000),
        };
        this.polls.add(poll);
        response.on("close", () => {
          clearTimeout(poll.timer);
          this.polls.delete(poll);
        });
        this.answerPoll(poll);
        return true;
      }
      case "sendMessage": {
        const problem = this.checkText(payload);
        if (problem !== null) return bad(problem);
        const message: FakeChatMessage = {
          chatId: Number(payload.chat_id),
          messageId: this.nextMessageId++,
          fromBot: true,
          text: String(payload.text),
          parseMode: typeof payload.parse_mode === "string" ? payload.parse_mode : null,
          replyMarkup: markupOf(payload),
          edits: 0,
        };
        this.messages.push(message);
        return ok({
          message_id: message.messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: message.chatId, type: "private" },
          text: message.text,
        });
      }
      case "editMessageText": {
        const message = this.find(payload);
        if (message === undefined) return bad("Bad Request: message to edit not found");
        const problem = this.checkText(payload);
        if (problem !== null) return bad(problem);
        const markup = markupOf(payload);
        if (
          message.text === String(payload.text) &&
          JSON.stringify(message.replyMarkup) === JSON.stringify(markup)
        ) {
          return bad(
            "Bad Request: message is not modified: specified new message content and reply markup are exactly the same",
          );
        }
        message.text = String(payload.text);
        message.parseMode = typeof payload.parse_mode === "string" ? payload.parse_mode : null;
        message.replyMarkup = markup;
        message.edits += 1;
        return ok({
          message_id: message.messageId,
          date: 0,
          chat: { id: message.chatId, type: "private" },
          text: message.text,
        });
      }
      case "editMessageReplyMarkup": {
        const message = this.find(payload);
        if (message === undefined) return bad("Bad Request: message to edit not found");
        const markup = markupOf(payload);
        const empty = markup === null || markup.inline_keyboard.length === 0;
        if (empty && message.replyMarkup === null) return bad("Bad Request: message is not modified");
        message.replyMarkup = empty ? null : markup;
        return ok({
          message_id: message.messageId,
          date: 0,
          chat: { id: message.chatId, type: "private" },
          text: message.text,
        });
      }
      case "deleteMessage": {
        const message = this.find(payload);
        if (message === undefined) return bad("Bad Request: message to delete not found");
        this.messages.splice(this.messages.indexOf(message), 1);
        return ok(true);
      }
      case "getFile": {
        const entry = this.files.get(String(payload.file_id));
        if (entry === undefined) return bad("Bad Request: invalid file_id");
        return ok({
          file_id: payload.file_id,
          file_unique_id: `u${payload.file_id}`,
          file_size: entry.content.length,
          file_path: entry.path,
        });
      }
      default:
        return reply(response, 404, {
          ok: false,
          error_code: 404,
          description: `Not Found: method ${method}`,
        });
    }
  }

  private find(payload: Record<string, unknown>): FakeChatMessage | undefined {
    return this.messages.find(
      (message) =>
        message.chatId === Number(payload.chat_id) && message.messageId === Number(payload.message_id),
    );
  }

  private checkText(payload: Record<string, unknown>): string | null {
    const text = String(payload.text ?? "");
    if (payload.parse_mode === "HTML") {
      if (this.rejectHtml)
        return 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0';
      const problem = validateHtml(text);
      if (problem !== null) return `Bad Request: can't parse entities: ${problem}`;
      if (visibleText(text).length > 4096) return "Bad Request: message is too long";
    } else if (text.length > 4096) {
      return "Bad Request: message is too long";
    }
    if (text.trim() === "") return "Bad Request: message text is empty";
    return null;
  }
}

export function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

function validateHtml(html: string): string | null {
  const stack: string[] = [];
  for (const match of html.matchAll(/<(\/?)([a-z-]+)([^>]*)>|&(#?\w+);|&|<|>/g)) {
    const whole = match[0];
    if (whole === "&" || whole === "<" || whole === ">") return `unescaped "${whole}" at ${match.index}`;
    if (match[4] !== undefined) {
      if (!["lt", "gt", "amp", "quot"].includes(match[4]) && !match[4].startsWith("#"))
        return `unknown entity &${match[4]};`;
      continue;
    }
    const name = match[2] ?? "";
    if (!ALLOWED_TAGS.has(name)) return `Unsupported start tag "${name}"`;
    if (match[1] === "") stack.push(name);
    else if (stack.pop() !== name) return `Can't find end tag corresponding to start tag "${name}"`;
  }
  return stack.length === 0 ? null : `Can't find end tag corresponding to start tag "${stack.at(-1)}"`;
}

function markupOf(payload: Record<string, unknown>): FakeChatMessage["replyMarkup"] {
  const markup = payload.reply_markup;
  if (markup === undefined || markup === null) return null;
  const parsed = (typeof markup === "string" ? JSON.parse(markup) : markup) as FakeChatMessage["replyMarkup"];
  return parsed !== null && parsed.inline_keyboard.length > 0 ? parsed : null;
}

function parsePayload(body: string): Record<string, unknown> {
  if (body.trim() === "") return {};
  const parsed: unknown = JSON.parse(body);
  if (typeof parsed !== "object" || parsed === null)
    throw new Error(`fake telegram: payload is not an object: ${body}`);
  return parsed as Record<string, unknown>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function reply(response: ServerResponse, status: number, body: unknown): true {
  if (response.writableEnded || response.destroyed) return true;
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  return true;
}
