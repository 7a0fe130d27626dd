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
