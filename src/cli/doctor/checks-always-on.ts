import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import type { Check, DoctorCheck } from "./types.js";

/** Is the daemon up and answering; a lock or socket left behind by a dead one is cleaned by --fix. */
export const daemonCheck: DoctorCheck = async ({ settings: { paths } }) => {
  const { readLiveLock } = await import("../../daemon/lock.js");
  const holder = readLiveLock(paths.lock);
  if (!holder) {
    const stale = existsSync(paths.socket);
    return [
      {
        name: "daemon",
        status: "warn",
        detail: `not running${stale ? ` (a stale socket ${paths.socket} is left behind)` : ""}`,
        fix: "`mercury start` runs it in the background; `mercury service install` starts it at login",
        ...(stale
          ? {
              repair: () => {
                unlinkSync(paths.socket);
                return `removed the stale socket ${paths.socket}`;
              },
            }
          : {}),
      },
    ];
  }
  const { DaemonClient } = await import("../../daemon/client.js");
  const client = await DaemonClient.tryConnect(paths.socket);
  if (!client) {
    return [
      {
        name: "daemon",
        status: "fail",
        detail: `pid ${holder.pid} holds the lock but does not answer on ${paths.socket}`,
        fix: `see \`mercury logs\`; then \`mercury restart\` (or kill ${holder.pid} and \`mercury start\`)`,
      },
    ];
  }
  try {
    await client.request({ type: "status" });
    return [
      { name: "daemon", status: "ok", detail: `running (pid ${holder.pid}), answering on ${paths.socket}` },
    ];
  } catch (error) {
    return [
      {
        name: "daemon",
        status: "fail",
        detail: `pid ${holder.pid} accepted a connection but failed a status request: ${error instanceof Error ? error.message : String(error)}`,
        fix: "see `mercury logs`, then `mercury restart`",
      },
    ];
  } finally {
    client.close();
  }
};

/** Lingering lets a systemd user unit run while the user is logged out (the point of 24/7). */
export function lingerEnabled(): boolean | null {
  try {
    const output = execFileSync("loginctl", ["show-user", userInfo().username, "--property=Linger"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return output.trim() === "Linger=yes";
  } catch {
    // No loginctl (containers, non-systemd machines): nothing we can tell.
    return null;
  }
}

export const serviceCheck: DoctorCheck = async () => {
  const { servicePlatform, unitPath } = await import("../../daemon/service-unit.js");
  if (process.platform !== "linux" && process.platform !== "darwin") {
    return [{ name: "service", status: "ok", detail: `no service support on ${process.platform}` }];
  }
  const userHome = process.env.HOME && process.env.HOME.trim() !== "" ? process.env.HOME : homedir();
  const path = unitPath({ platform: servicePlatform(process.platform), userHome });
  if (!existsSync(path)) {
    return [
      {
        name: "service",
        status: "ok",
        detail: `not installed (optional: \`mercury service install\` starts Mercury at login; would be ${path})`,
      },
    ];
  }
  const checks: Check[] = [{ name: "service", status: "ok", detail: `installed at ${path}` }];
  const unit = readFileSync(path, "utf8");
  const cli = /ExecStart=\S+ (\S+)/.exec(unit)?.[1];
  if (cli && !existsSync(cli)) {
    checks[0] = {
      name: "service",
      status: "fail",
      detail: `${path} starts ${cli}, which no longer exists`,
      fix: "run `mercury service install` again from where Mercury now lives",
    };
  }
  if (process.platform === "linux" && lingerEnabled() === false) {
    checks.push({
      name: "service lingering",
      status: "warn",
      detail: "lingering is off: systemd stops your user services when you log out",
      fix: `loginctl enable-linger ${userInfo().username}`,
    });
  }
  return checks;
};

const telegramTokenShape = /^\d+:[A-Za-z0-9_-]+$/;

/** The bot token: set when Telegram is on, well-formed, and accepted by the Bot API (getMe). */
export const telegramCheck: DoctorCheck = async ({ settings, offline }) => {
  const token = settings.env.TELEGRAM_BOT_TOKEN;
  const enabled = settings.config.telegram.enabled;
  if (!token) {
    return enabled
      ? [
          {
            name: "telegram",
            status: "fail",
            detail: "telegram.enabled is true but TELEGRAM_BOT_TOKEN is not set",
            fix: "get a token from @BotFather, then `mercury setup --provider … --telegram-token <token>` (or put TELEGRAM_BOT_TOKEN in $MERCURY_HOME/.env)",
          },
        ]
      : [{ name: "telegram", status: "ok", detail: "not configured (optional)" }];
  }
  const fix =
    "copy the token again from @BotFather (/mybots → API Token) into TELEGRAM_BOT_TOKEN in $MERCURY_HOME/.env";
  if (!telegramTokenShape.test(token.trim())) {
    return [
      {
        name: "telegram",
        status: "fail",
        detail: "TELEGRAM_BOT_TOKEN is not shaped like a bot token (123456:ABC…)",
        fix,
      },
    ];
  }
  if (offline) return [{ name: "telegram", status: "ok", detail: "token present (not checked: --offline)" }];
  const root = (settings.env.MERCURY_TELEGRAM_API_ROOT?.trim() || "https://api.telegram.org").replace(
    /\/+$/,
    "",
  );
  const redact = (text: string) => settings.redactor.redact(text.split(token).join("[REDACTED]"));
  let response: Response;
  try {
    response = await fetch(`${root}/bot${token.trim()}/getMe`, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause =
      error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    return [
      {
        name: "telegram",
        status: "fail",
        detail: redact(`cannot reach ${root}: ${cause}`),
        fix: "check this machine's network (and MERCURY_TELEGRAM_API_ROOT if you set it)",
      },
    ];
  }
  const body: unknown = await response.json().catch((error: unknown) => ({ parseError: String(error) }));
  const result = body && typeof body === "object" && "result" in body ? body.result : undefined;
  if (response.ok && result && typeof result === "object" && "username" in result) {
    const enabledNote = enabled ? "" : " — telegram.enabled is false, so the daemon does not start the bot";
    return [
      {
        name: "telegram",
        status: enabled ? "ok" : "warn",
        detail: `the token belongs to @${String(result.username)}${enabledNote}`,
        ...(enabled ? {} : { fix: "`mercury config set telegram.enabled true`, then `mercury restart`" }),
      },
    ];
  }
  const description =
    body && typeof body === "object" && "description" in body
      ? String(body.description)
      : `HTTP ${response.status}`;
  return [
    {
      name: "telegram",
      status: "fail",
      detail: redact(
        response.status === 401 || response.status === 404
          ? `the bot token was rejected by Telegram (${response.status} ${description})`
          : `Telegram answered ${response.status}: ${description}`,
      ),
      fix,
    },
  ];
};
