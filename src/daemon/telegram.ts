import type { MercuryApp } from "../app/container.js";
import type { Logger } from "../app/logger.js";
import type { DaemonGateway } from "../channels/gateway.js";
import {
  createTelegramChannel,
  type TelegramChannel,
  telegramApiRootFromEnv,
} from "../channels/telegram/bot.js";
import type { SupervisedChannel } from "./supervisor.js";

/**
 * The Telegram channel when TELEGRAM_BOT_TOKEN is set and telegram.enabled is true. Each start
 * builds a fresh channel, so a restart after a failure does not reuse a broken poller.
 */
export function telegramChannelFor(
  app: MercuryApp,
  gateway: DaemonGateway,
  logger: Logger,
  workspaceDir: string,
): { channel: SupervisedChannel | null; reason: string } {
  const token = app.env.TELEGRAM_BOT_TOKEN?.trim();
  if (!token) return { channel: null, reason: "TELEGRAM_BOT_TOKEN is not set" };
  if (!app.config.telegram.enabled) {
    return {
      channel: null,
      reason: "telegram.enabled is false in config.yaml (run `mercury setup` or set it)",
    };
  }
  const apiRoot = telegramApiRootFromEnv(app.env);
  const retryBaseMs = telegramRetryBaseMsFromEnv(app.env);
  const channelLogger = logger.child({ channel: "telegram" });
  let current: TelegramChannel | null = null;
  return {
    reason: "configured",
    channel: {
      name: "telegram",
      async start() {
        current = createTelegramChannel({
          token,
          gateway,
          database: app.database,
          workspaceDir,
          logger: channelLogger,
          groups: app.config.telegram.groups,
          ...(apiRoot !== undefined ? { apiRoot } : {}),
          // The product's ratio: a failed part is sent again ten first backoffs later (500 ms and 5 s).
          ...(retryBaseMs !== undefined
            ? { retry: { baseDelayMs: retryBaseMs }, deliveryRetryMs: retryBaseMs * 10 }
            : {}),
        });
        await current.start();
      },
      async stop() {
        const channel = current;
        current = null;
        if (channel) await channel.stop();
      },
      health() {
        return current ? current.health() : null;
      },
    },
  };
}

/**
 * MERCURY_TELEGRAM_RETRY_BASE_MS: the first backoff of a failed API call (default 500 ms, doubling);
 * a reply part that still failed is sent again ten times that later (default 5 s). Tests make both
 * short so an outage that outlasts the retries is not tens of seconds of waiting.
 */
export function telegramRetryBaseMsFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.MERCURY_TELEGRAM_RETRY_BASE_MS;
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 60_000) {
    throw new Error(`MERCURY_TELEGRAM_RETRY_BASE_MS must be an integer from 1 to 60000, got "${raw}"`);
  }
  return value;
}
