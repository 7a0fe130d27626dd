import type { Command } from "commander";
import { TelegramAccess, type TelegramUser, userKeyFor } from "../../channels/telegram/access.js";
import { readLiveLock } from "../../daemon/lock.js";
import type { SqliteDatabase } from "../../storage/database.js";

export interface TelegramCommandDeps {
  openDatabase: () => SqliteDatabase;
  /** Where output goes; tests capture it. */
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** What still keeps the bot from answering a pairing code (null: nothing). */
  notReady?: () => string | null;
}

/**
 * A pairing code only works once the bot runs: a token, `telegram.enabled`, and the daemon. Says
 * what is missing and how to fix it, so nobody sends a code to a bot that is not listening.
 */
export function telegramNotReady(settings: {
  config: { telegram: { enabled: boolean } };
  env: NodeJS.ProcessEnv;
  paths: { lock: string };
}): string | null {
  const missing: string[] = [];
  if (!settings.env.TELEGRAM_BOT_TOKEN?.trim())
    missing.push("TELEGRAM_BOT_TOKEN is not set (put it in .env, or run `mercury setup`)");
  if (!settings.config.telegram.enabled)
    missing.push("telegram.enabled is false (`mercury config set telegram.enabled true`)");
  if (!readLiveLock(settings.paths.lock)) missing.push("the daemon is not running (`mercury start`)");
  return missing.length === 0 ? null : `the bot is not listening yet: ${missing.join("; ")}`;
}

/** Exit code 2 (usage) for a bad id, 1 (failure) for an id that is not in the list. */
function parseUserId(raw: string, stderr: (text: string) => void): number | null {
  if (!/^\d{1,15}$/.test(raw.trim()) || Number(raw) <= 0) {
    stderr(
      `"${raw}" is not a Telegram user id (a positive number). The bot's refusal message shows the id of whoever wrote to it.\n`,
    );
    process.exitCode = 2;
    return null;
  }
  return Number(raw);
}

/** `mercury telegram pair|approve|revoke|list`: who may talk to the bot. */
export function registerTelegramCommands(program: Command, deps: TelegramCommandDeps): void {
  const stdout = deps.stdout ?? ((text: string) => process.stdout.write(text));
  const stderr = deps.stderr ?? ((text: string) => process.stderr.write(text));
  const withAccess = <T>(run: (access: TelegramAccess) => T): T => {
    const database = deps.openDatabase();
    try {
      return run(new TelegramAccess(database));
    } finally {
      database.close();
    }
  };

  const telegram = program
    .command("telegram")
    .description("Telegram access: pair the owner, approve other users");

  telegram
    .command("pair")
    .description("print a single-use pairing code (valid 10 minutes); send `/start CODE` to your bot")
    .option("--json", "print one JSON document")
    .action((options: { json?: boolean }) => {
      const { code, expiresAt } = withAccess((access) => access.createPairingCode());
      const notReady = deps.notReady?.() ?? null;
      if (options.json) {
        stdout(`${JSON.stringify({ code, expiresAt, notReady })}\n`);
        return;
      }
      if (notReady) stderr(`warning: ${notReady}. The code is valid for 10 minutes.\n`);
      stdout(
        `Pairing code: ${code}\nSend "/start ${code}" to your bot in Telegram before ${expiresAt}. ` +
          "The code works once; whoever uses it becomes the owner.\n",
      );
    });

  telegram
    .command("approve")
    .description("let another Telegram user talk to Mercury (own sessions and memory)")
    .argument("<userId>", "numeric Telegram user id (shown in the bot's refusal message)")
    .option("--json", "print one JSON document")
    .action((raw: string, options: { json?: boolean }) => {
      const userId = parseUserId(raw, stderr);
      if (userId === null) return;
      const user = withAccess((access) => access.approve(userId));
      if (options.json) stdout(`${JSON.stringify({ user: present(user) })}\n`);
      else stdout(`Approved ${userId} as ${user.role} (userKey ${present(user).userKey}).\n`);
    });

  telegram
    .command("revoke")
    .description("take away a Telegram user's access")
    .argument("<userId>", "numeric Telegram user id")
    .option("--json", "print one JSON document")
    .action((raw: string, options: { json?: boolean }) => {
      const userId = parseUserId(raw, stderr);
      if (userId === null) return;
      const revoked = withAccess((access) => access.revoke(userId));
      if (options.json) stdout(`${JSON.stringify({ userId, revoked })}\n`);
      if (!revoked) {
        if (!options.json) stderr(`User ${userId} has no active access; see \`mercury telegram list\`.\n`);
        process.exitCode = 1;
        return;
      }
      if (!options.json) stdout(`Revoked ${userId}: their messages are refused from now on.\n`);
    });

  telegram
    .command("list")
    .description("who may talk to the bot")
    .option("--json", "print one JSON document")
    .action((options: { json?: boolean }) => {
      const users = withAccess((access) => access.list()).map(present);
      if (options.json) {
        stdout(`${JSON.stringify({ users })}\n`);
        return;
      }
      if (users.length === 0) {
        stdout("Nobody yet. Run `mercury telegram pair` and send the code to your bot.\n");
        return;
      }
      for (const user of users) {
        const state = user.revokedAt === null ? "active" : `revoked ${user.revokedAt}`;
        stdout(
          `${user.userId}  ${user.role.padEnd(6)}  ${(user.username ?? "-").padEnd(20)}  ${user.userKey}  ${state}\n`,
        );
      }
    });
}

function present(user: TelegramUser) {
  return { ...user, userKey: userKeyFor(user) };
}
