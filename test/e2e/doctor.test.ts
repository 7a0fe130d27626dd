import { chmodSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FAKE_TOKEN, FakeTelegramServer } from "../fakes/telegram-server.js";
import { makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();
const telegrams: FakeTelegramServer[] = [];
afterEach(async () => {
  await Promise.all(telegrams.splice(0).map((telegram) => telegram.close()));
});

interface Report {
  ok: boolean;
  checks: { name: string; status: string; detail: string; fix?: string; fixable: boolean }[];
  applied?: string[];
}

const check = (report: Report, name: string) => report.checks.find((entry) => entry.name === name);

describe("mercury doctor (built binary)", () => {
  it("reports a stopped daemon with how to start it, and a bad Telegram token as rejected, with fixes", async () => {
    const fake = await server();
    const telegram = await FakeTelegramServer.start();
    telegrams.push(telegram);
    const { home, userHome } = makeHome("telegram:\n  enabled: true\n");
    const env = providerEnv(fake.url, {
      TELEGRAM_BOT_TOKEN: "999999:WRONG-token_abcdefghijklmnopqrst",
      MERCURY_TELEGRAM_API_ROOT: telegram.apiRoot,
    });
    const result = await runCli(["doctor", "--json"], { home, userHome, env });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as Report;
    expect(check(report, "daemon")).toMatchObject({ status: "warn", detail: "not running" });
    expect(check(report, "daemon")?.fix).toContain("mercury start");
    const telegramCheck = check(report, "telegram");
    expect(telegramCheck).toMatchObject({ status: "fail" });
    expect(telegramCheck?.detail).toContain("the bot token was rejected by Telegram (401 Unauthorized)");
    expect(telegramCheck?.fix).toContain("@BotFather");
    expect(result.stdout).not.toContain("WRONG-token");
    expect(check(report, "database")?.status).toBe("ok");

    const good = await runCli(["doctor", "--json"], {
      home,
      userHome,
      env: { ...env, TELEGRAM_BOT_TOKEN: FAKE_TOKEN },
    });
    const goodReport = JSON.parse(good.stdout) as Report;
    expect(check(goodReport, "telegram")).toMatchObject({ status: "ok" });
    expect(check(goodReport, "telegram")?.detail).toMatch(/^the token belongs to @/);
  });

  it("an unreachable Telegram API is named, not mistaken for a bad token", async () => {
    const fake = await server();
    const telegram = await FakeTelegramServer.start();
    const root = telegram.apiRoot;
    await telegram.close();
    const { home, userHome } = makeHome("telegram:\n  enabled: true\n");
    const result = await runCli(["doctor", "--json"], {
      home,
      userHome,
      env: providerEnv(fake.url, { TELEGRAM_BOT_TOKEN: FAKE_TOKEN, MERCURY_TELEGRAM_API_ROOT: root }),
    });
    const report = JSON.parse(result.stdout) as Report;
    expect(check(report, "telegram")?.detail).toContain(`cannot reach ${root}`);
  });

  it("--fix applies the safe fixes (0600 .env, soul files, stale socket) and checks again", async () => {
    const fake = await server();
    const { home, userHome } = makeHome();
    writeFileSync(join(home, ".env"), "SOME_TOKEN=abcdefgh\n");
    chmodSync(join(home, ".env"), 0o644);
    writeFileSync(join(home, "mercury.sock"), "");
    rmSync(join(home, "soul"), { recursive: true, force: true });
    const before = JSON.parse(
      (await runCli(["doctor", "--json"], { home, userHome, env: providerEnv(fake.url) })).stdout,
    ) as Report;
    expect(check(before, "secrets")).toMatchObject({ status: "fail", fixable: true });
    expect(check(before, "soul")).toMatchObject({ status: "warn", fixable: true });
    expect(check(before, "daemon")?.detail).toContain("stale socket");

    const fixed = await runCli(["doctor", "--fix", "--json"], { home, userHome, env: providerEnv(fake.url) });
    const report = JSON.parse(fixed.stdout) as Report;
    expect(report.applied).toHaveLength(3);
    expect(statSync(join(home, ".env")).mode & 0o777).toBe(0o600);
    expect(check(report, "secrets")?.status).toBe("ok");
    expect(check(report, "soul")?.status).toBe("ok");
    expect(check(report, "daemon")).toMatchObject({ detail: "not running" });
    expect(() => statSync(join(home, "mercury.sock"))).toThrow();
    expect(fixed.code).toBe(0);
  });
});
