import { Bot, BotError, GrammyError } from "grammy";
import type { Update } from "grammy/types";
import type { SqliteDatabase } from "../../storage/database.js";
import type { AgentGateway } from "../types.js";
import { TelegramAccess } from "./access.js";
import { DeliveryStore } from "./deliveries.js";
import { DEFAULT_MAX_FILE_BYTES } from "./files.js";
import { BOT_COMMANDS, installHandlers } from "./handlers.js";
import { type ChannelLogger, stderrLogger } from "./logger.js";
import { Poller } from "./poller.js";
import { Prompts } from "./prompts.js";
import { ChatQueues } from "./queue.js";
import { ReplyStreams } from "./replies.js";
import { EventRouter } from "./routing.js";
import { TELEGRAM_MESSAGE_LIMIT } from "./split.js";
import { TelegramState } from "./state.js";
import { defaultRetryOptions, describeError, MessageSender, retryTransformer } from "./transport.js";

export const DEFAULT_API_ROOT = "https://api.telegram.org";

export interface TelegramChannelOptions {
  token: string;
  /** Another Bot API server (MERCURY_TELEGRAM_API_ROOT), e.g. a local one or a test fake. */
  apiRoot?: string;
  gateway: AgentGateway;
  database: SqliteDatabase;
  logger?: ChannelLogger;
  /** Where photos and documents are saved (under telegram-uploads/). */
  workspaceDir: string;
  /** Minimum time between two edits of a streamed reply in one chat (default 1,000 ms). */
  editIntervalMs?: number;
  /** Long-poll timeout in seconds (default 30). */
  pollTimeoutSeconds?: number;
  /** How long past the poll timeout a silent getUpdates is given before polling restarts (default 10 s). */
  watchdogGraceMs?: number;
  /** Retries of one API call: attempts and exponential backoff (429 waits retry_after instead). */
  retry?: Partial<typeof defaultRetryOptions>;
  /** Backoff of failed polls (default 1 s doubling to 30 s) and of a 409 conflict (default 30 s). */
  pollRetryBaseMs?: number;
  pollRetryMaxMs?: number;
  conflictRetryMs?: number;
  /** How long a poll waits for the previous batch's handlers before going on (default 5 s). */
  handlerWaitMs?: number;
  maxFileBytes?: number;
  /** Message size limit; only tests lower it. */
  messageLimit?: number;
  /** First wait before a reply part that failed to send is sent again while the bot runs (default 5 s). */
  deliveryRetryMs?: number;
  /** Group and supergroup chat ids the owner enabled (`telegram.groups`); every other group is refused. */
  groups?: readonly number[];
}

export interface TelegramChannel {
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): { polling: boolean; lastPollAt: string | null; lastError: string | null };
}

/** The Telegram channel for the daemon: access gate, long polling, streamed replies, buttons. */
export function createTelegramChannel(options: TelegramChannelOptions): TelegramChannel {
  const token = options.token.trim();
  if (!/^\d+:[\w-]+$/.test(token)) {
    throw new Error(
      "TELEGRAM_BOT_TOKEN does not look like a bot token (expected 123456:ABC-...); copy it again from @BotFather",
    );
  }
  const apiRoot = (options.apiRoot ?? DEFAULT_API_ROOT).replace(/\/+$/, "");
  const logger = options.logger ?? stderrLogger;
  const bot = new Bot(token, { client: { apiRoot, timeoutSeconds: 120 } });
  bot.api.config.use(retryTransformer({ ...defaultRetryOptions, ...options.retry, logger }));

  const access = new TelegramAccess(options.database);
  const deliveries = new DeliveryStore(options.database);
  const state = new TelegramState(options.database);
  const queues = new ChatQueues(logger);
  const sender = new MessageSender(bot.api, logger);
  const streams = new ReplyStreams({
    sender,
    deliveries,
    queues,
    logger,
    editIntervalMs: options.editIntervalMs ?? 1000,
    messageLimit: options.messageLimit ?? TELEGRAM_MESSAGE_LIMIT,
    ...(options.deliveryRetryMs === undefined ? {} : { retryBaseMs: options.deliveryRetryMs }),
  });
  const prompts = new Prompts(sender, queues, logger);
  const router = new EventRouter({ state, streams, prompts, queues, sender, logger });

  const poller = new Poller({
    api: bot.api,
    logger,
    dispatch: (update) => dispatch(update),
    loadOffset: () => state.loadOffset(),
    saveOffset: (offset) => state.saveOffset(offset),
    pollTimeoutSeconds: options.pollTimeoutSeconds ?? 30,
    watchdogGraceMs: options.watchdogGraceMs ?? 10_000,
    retryBaseMs: options.pollRetryBaseMs ?? 1000,
    retryMaxMs: options.pollRetryMaxMs ?? 30_000,
    conflictRetryMs: options.conflictRetryMs ?? 30_000,
    handlerWaitMs: options.handlerWaitMs ?? 5000,
  });

  installHandlers(bot, {
    gateway: options.gateway,
    access,
    router,
    prompts,
    sender,
    logger,
    health: () => poller.health(),
    groups: new Set(options.groups ?? []),
    download: {
      apiRoot,
      token,
      workspaceDir: options.workspaceDir,
      maxBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    },
  });

  // Updates of one chat are handled in order; different chats do not wait for each other.
  const chatChains = new Map<number, Promise<void>>();
  async function dispatch(update: Update): Promise<void> {
    const chatId = update.message?.chat.id ?? update.callback_query?.from.id ?? 0;
    const previous = chatChains.get(chatId) ?? Promise.resolve();
    const next = previous.then(() => handle(update));
    chatChains.set(chatId, next);
    await next;
    if (chatChains.get(chatId) === next) chatChains.delete(chatId);
  }

  async function handle(update: Update): Promise<void> {
    try {
      await bot.handleUpdate(update);
    } catch (error) {
      const cause = error instanceof BotError ? error.error : error;
      logger.error({ updateId: update.update_id, error: describeError(cause) }, "telegram update failed");
      const chatId = update.message?.chat.id ?? update.callback_query?.from.id;
      if (chatId === undefined) return;
      try {
        await bot.api.sendMessage(chatId, `Something went wrong handling that: ${describeError(cause)}`);
      } catch (replyError) {
        logger.error(
          { chatId, error: describeError(replyError) },
          "telegram could not report the failure either",
        );
      }
    }
  }

  let unsubscribe: (() => void) | null = null;
  let started = false;

  return {
    async start() {
      if (started) return;
      try {
        await bot.init();
        await bot.api.setMyCommands(BOT_COMMANDS);
      } catch (error) {
        if (error instanceof GrammyError && error.error_code === 401) {
          throw new Error(
            "Telegram refused the bot token (401 Unauthorized): check TELEGRAM_BOT_TOKEN (from @BotFather)",
          );
        }
        throw new Error(`Telegram channel could not start at ${apiRoot}: ${describeError(error)}`);
      }
      unsubscribe = options.gateway.subscribe((event) => router.handle(event));
      started = true;
      const resent = await streams.deliverPending();
      if (resent > 0) logger.info({ resent }, "telegram replies left pending by a restart were delivered");
      poller.start();
      logger.info({ bot: bot.botInfo.username }, "telegram channel started");
    },
    async stop() {
      if (!started) return;
      started = false;
      unsubscribe?.();
      unsubscribe = null;
      // The poller waits (bounded) for running handlers; outgoing messages already queued are sent.
      await poller.stop();
      if (!(await queues.idle(options.handlerWaitMs ?? 5000))) {
        // Final replies keep their pending delivery records and go out at the next start.
        logger.warn({ chats: queues.pending() }, "telegram stopped before every outgoing message was sent");
      }
      streams.close();
      prompts.close();
    },
    health() {
      const { polling, lastPollAt, lastError } = poller.health();
      return { polling, lastPollAt, lastError };
    },
  };
}

export function telegramApiRootFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env.MERCURY_TELEGRAM_API_ROOT?.trim();
  if (value === undefined || value === "") return undefined;
  if (!/^https?:\/\//.test(value)) {
    throw new Error(`MERCURY_TELEGRAM_API_ROOT must be an http(s) URL, got "${value}"`);
  }
  return value.replace(/\/+$/, "");
}
