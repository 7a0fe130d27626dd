import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TelegramAccess } from "../../../src/channels/telegram/access.js";
import { createTelegramChannel, type TelegramChannelOptions } from "../../../src/channels/telegram/bot.js";
import type { ChannelLogger } from "../../../src/channels/telegram/logger.js";
import { openMemoryDatabase, type SqliteDatabase } from "../../../src/storage/database.js";
import { type FakeChatMessage, FakeTelegramServer, type FakeUser } from "../../fakes/telegram-server.js";
import { FakeGateway } from "./fake-gateway.js";

export interface LogEntry {
  level: "info" | "warn" | "error";
  message: string;
  details: object;
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

export const OWNER: FakeUser = { id: 1001, username: "owner" };
export const MEMBER: FakeUser = { id: 2002, username: "member" };
export const STRANGER: FakeUser = { id: 6666, username: "stranger" };

/** The real channel (real grammY) against the fake Bot API, with timings shrunk for tests. */
export async function startHarness(
  overrides: Partial<TelegramChannelOptions> & {
    server?: FakeTelegramServer;
    database?: SqliteDatabase;
  } = {},
) {
  const server = overrides.server ?? (await FakeTelegramServer.start());
  const database = overrides.database ?? openMemoryDatabase();
  const gateway = new FakeGateway();
  const logs: LogEntry[] = [];
  const logger: ChannelLogger = {
    info: (details, message) => logs.push({ level: "info", message, details }),
    warn: (details, message) => logs.push({ level: "warn", message, details }),
    error: (details, message) => logs.push({ level: "error", message, details }),
  };
  const workspaceDir = mkdtempSync(join(tmpdir(), "mercury-tg-"));
  const channel = createTelegramChannel({
    token: server.token,
    apiRoot: server.apiRoot,
    gateway,
    database,
    logger,
    workspaceDir,
    editIntervalMs: 100,
    pollTimeoutSeconds: 1,
    watchdogGraceMs: 400,
    pollRetryBaseMs: 50,
    pollRetryMaxMs: 200,
    conflictRetryMs: 200,
    retry: { baseDelayMs: 20, maxDelayMs: 100 },
    ...overrides,
  });
  await channel.start();
  const access = new TelegramAccess(database);
  return {
    server,
    database,
    gateway,
    channel,
    logs,
    access,
    workspaceDir,
    /** The last message the bot sent to this chat whose text matches. */
    async reply(chatId: number, pattern: RegExp, timeoutMs = 5000): Promise<FakeChatMessage> {
      return server.waitFor(
        () => server.chat(chatId).findLast((message) => pattern.test(message.text)),
        timeoutMs,
        `a bot message matching ${pattern} in chat ${chatId}`,
      );
    },
    async pairOwner(user: FakeUser = OWNER): Promise<void> {
      const { code } = access.createPairingCode();
      server.sendUserMessage(user, `/start ${code}`);
      await this.reply(user.id, /Paired/);
    },
    async close(options: { keepServer?: boolean } = {}): Promise<void> {
      await channel.stop();
      if (!options.keepServer) await server.close();
      rmSync(workspaceDir, { recursive: true, force: true });
    },
  };
}
