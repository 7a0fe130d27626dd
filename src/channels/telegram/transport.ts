import { type Api, GrammyError, type Transformer } from "grammy";
import type { ChannelLogger } from "./logger.js";
import { renderMarkdown } from "./markdown.js";

export interface RetryOptions {
  /** Attempts per API call, including the first. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  logger: ChannelLogger;
}

export const defaultRetryOptions = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * Installed on the bot's API: a 429 waits exactly `retry_after` seconds, a 5xx or a network error
 * backs off exponentially, then the last failure is returned to the caller, who reports it.
 * getUpdates is left alone: the poller has its own watchdog and backoff.
 */
export function retryTransformer(options: RetryOptions): Transformer {
  return async (prev, method, payload, signal) => {
    if (method === "getUpdates") return prev(method, payload, signal);
    for (let attempt = 1; ; attempt++) {
      let delayMs: number;
      let cause: string;
      try {
        const response = await prev(method, payload, signal);
        if (response.ok || attempt >= options.maxAttempts) return response;
        if (response.error_code === 429) {
          delayMs = (response.parameters?.retry_after ?? 1) * 1000;
        } else if (response.error_code >= 500) {
          delayMs = backoff(attempt, options);
        } else {
          return response;
        }
        cause = `${response.error_code} ${response.description}`;
      } catch (error) {
        if (signal?.aborted || attempt >= options.maxAttempts) throw error;
        delayMs = backoff(attempt, options);
        cause = error instanceof Error ? error.message : String(error);
      }
      options.logger.warn(
        { method, attempt, delayMs, cause },
        `telegram ${method} failed (${cause}); retrying in ${delayMs} ms`,
      );
      // grammY types the signal with its abort-controller polyfill; at run time it is Node's AbortSignal.
      await sleep(delayMs, signal as AbortSignal | undefined);
    }
  };
}

export function backoff(attempt: number, options: { baseDelayMs: number; maxDelayMs: number }): number {
  return Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function isParseEntitiesError(error: unknown): boolean {
  return (
    error instanceof GrammyError &&
    error.error_code === 400 &&
    /can't parse entities|unsupported start tag|can't find end tag|unexpected end tag/i.test(
      error.description,
    )
  );
}

export function isNotModifiedError(error: unknown): boolean {
  return error instanceof GrammyError && /message is not modified/i.test(error.description);
}

export function describeError(error: unknown): string {
  if (error instanceof GrammyError) return `${error.error_code} ${error.description} (${error.method})`;
  return error instanceof Error ? error.message : String(error);
}

export interface InlineKeyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

/** What Telegram shows for an HTML message, for the plain-text fallback of messages we format ourselves. */
export function htmlToPlain(html: string): string {
  return html
    .replace(/<[^>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

/**
 * Sends Markdown (or our own HTML) as Telegram HTML; when Telegram rejects the markup, sends the
 * same text as plain text instead of losing the message.
 */
export class MessageSender {
  constructor(
    private readonly api: Api,
    private readonly logger: ChannelLogger,
  ) {}

  send(chatId: number, markdown: string, keyboard?: InlineKeyboard): Promise<number> {
    return this.sendHtml(chatId, renderMarkdown(markdown), keyboard, markdown);
  }

  edit(chatId: number, messageId: number, markdown: string, keyboard?: InlineKeyboard): Promise<void> {
    return this.editHtml(chatId, messageId, renderMarkdown(markdown), keyboard, markdown);
  }

  async sendHtml(
    chatId: number,
    html: string,
    keyboard?: InlineKeyboard,
    plain = htmlToPlain(html),
  ): Promise<number> {
    const markup = keyboard === undefined ? {} : { reply_markup: keyboard };
    try {
      const sent = await this.api.sendMessage(chatId, html, { parse_mode: "HTML", ...markup });
      return sent.message_id;
    } catch (error) {
      if (!isParseEntitiesError(error)) throw error;
      this.logger.warn({ chatId, error: describeError(error) }, "telegram rejected HTML; sending plain text");
      const sent = await this.api.sendMessage(chatId, plain, markup);
      return sent.message_id;
    }
  }

  /** Edits a message's text; "not modified" counts as done. */
  async editHtml(
    chatId: number,
    messageId: number,
    html: string,
    keyboard?: InlineKeyboard,
    plain = htmlToPlain(html),
  ): Promise<void> {
    const markup = keyboard === undefined ? {} : { reply_markup: keyboard };
    try {
      await this.api.editMessageText(chatId, messageId, html, { parse_mode: "HTML", ...markup });
    } catch (error) {
      if (isNotModifiedError(error)) return;
      if (!isParseEntitiesError(error)) throw error;
      this.logger.warn(
        { chatId, error: describeError(error) },
        "telegram rejected HTML; editing as plain text",
      );
      try {
        await this.api.editMessageText(chatId, messageId, plain, markup);
      } catch (plainError) {
        if (!isNotModifiedError(plainError)) throw plainError;
      }
    }
  }

  async removeButtons(chatId: number, messageId: number): Promise<void> {
    try {
      await this.api.editMessageReplyMarkup(chatId, messageId, { reply_markup: { inline_keyboard: [] } });
    } catch (error) {
      if (!isNotModifiedError(error)) throw error;
    }
  }
}
