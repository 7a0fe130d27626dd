import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeTelegramServer } from "../fakes/telegram-server.js";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

describe("mercury chat (piped input)", () => {
  it("answers each line in one session, handles slash commands, and keeps context", async () => {
    const fake = await server({
      replies: [{ text: "Nice to meet you, Ada." }, { text: "Your name is Ada." }],
    });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const result = await runCli(["chat"], {
      home,
      userHome,
      cwd: workspace,
      env: providerEnv(fake.url),
      input: "my name is Ada\n/budget\nwhat is my name?\n/status\n",
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Nice to meet you, Ada.");
    expect(result.stdout).toContain("Your name is Ada.");
    expect(result.stderr).toMatch(/budget today: \d+ tokens of 2000000/);
    expect(result.stderr).toContain("provider: openai-compatible (fake-model)");
    const second = JSON.stringify(fake.chatRequests()[1]?.body);
    expect(second).toContain("my name is Ada");
    expect(second).toContain("Nice to meet you, Ada.");
  });

  it("keeps CJK text and a bracketed multi-line paste intact as one message", async () => {
    const fake = await server({ replies: [{ text: "你好，小明。" }, { text: "Two lines received." }] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const result = await runCli(["chat"], {
      home,
      userHome,
      cwd: workspace,
      env: providerEnv(fake.url),
      input: "我的名字是小明，東京に住んでいます\n\x1b[200~first pasted line\nsecond pasted line\x1b[201~\n",
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("你好，小明。");
    const messages = (request: number) =>
      (fake.chatRequests()[request]?.body as { messages: { role: string; content: string }[] } | undefined)
        ?.messages ?? [];
    expect(messages(0).at(-1)).toEqual({ role: "user", content: "我的名字是小明，東京に住んでいます" });
    expect(messages(1).at(-1)).toEqual({ role: "user", content: "first pasted line\nsecond pasted line" });
    expect(fake.chatRequests()).toHaveLength(2);
  });

  it("continues the latest session in a new process", async () => {
    const fake = await server({ replies: [{ text: "Noted: blue." }, { text: "You said blue." }] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    await runCli(["chat"], {
      home,
      userHome,
      cwd: workspace,
      env: providerEnv(fake.url),
      input: "my colour is blue\n",
    });
    const result = await runCli(["chat"], {
      home,
      userHome,
      cwd: workspace,
      env: providerEnv(fake.url),
      input: "which colour?\n",
    });
    expect(result.stdout).toContain("You said blue.");
    expect(JSON.stringify(fake.chatRequests()[1]?.body)).toContain("my colour is blue");
  });
});

describe("mercury setup (scripted) and doctor", () => {
  it("tests the connection, writes config.yaml without secrets and .env with mode 0600", async () => {
    const fake = await server({ replies: [{ text: "OK" }], apiKey: "sk-setup-test-key-123456" });
    const { home, userHome } = makeHome();
    const result = await runCli(
      [
        "setup",
        "--provider",
        "openai-compatible",
        "--model",
        "fake-model",
        "--base-url",
        fake.url,
        "--telegram-token",
        "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi",
      ],
      { home, userHome, env: { MERCURY_API_KEY: "sk-setup-test-key-123456" } },
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('connection test ok: openai-compatible/fake-model replied "OK"');
    const config = readFileSync(join(home, "config.yaml"), "utf8");
    expect(config).toContain("provider: openai-compatible");
    expect(config).toMatch(/telegram:\n\s+enabled: true/);
    expect(config).not.toContain("sk-setup");
    expect(statSync(join(home, ".env")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(home, ".env"), "utf8")).toContain("TELEGRAM_BOT_TOKEN=123456:");

    // Doctor checks the bot token with getMe: against a loopback Bot API, never the real one.
    const telegram = await FakeTelegramServer.start("123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi");
    const doctor = await runCli(["doctor", "--json"], {
      home,
      userHome,
      env: { MERCURY_API_KEY: "sk-setup-test-key-123456", MERCURY_TELEGRAM_API_ROOT: telegram.apiRoot },
    }).finally(() => telegram.close());
    const report = JSON.parse(doctor.stdout);
    expect(report.ok).toBe(true);
    expect(report.checks.map((check: { name: string }) => check.name)).toEqual(
      expect.arrayContaining([
        "node",
        "config",
        "database",
        "secrets",
        "soul",
        "provider openai-compatible (fake-model)",
        "daemon",
        "service",
        "telegram",
      ]),
    );
  });

  it("writes nothing when the connection test fails", async () => {
    const fake = await server({ apiKey: "the-right-key-123" });
    const { home, userHome } = makeHome();
    const result = await runCli(
      ["setup", "--provider", "openai-compatible", "--model", "m", "--base-url", fake.url],
      {
        home,
        userHome,
        env: { MERCURY_API_KEY: "a-wrong-key-456" },
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("401 Incorrect API key provided");
    expect(() => statSync(join(home, "config.yaml"))).toThrow();
  });

  it("doctor names each problem with its fix and exits 1", async () => {
    const closed = await server();
    const port = new URL(closed.url).port;
    await closed.close();
    const { home, userHome } = makeHome(
      `provider: ollama\nmodel: llama3.1\nbaseUrl: http://127.0.0.1:${port}/v1\n`,
    );
    writeFileSync(join(home, ".env"), "X=1\n", { mode: 0o644 });
    const result = await runCli(["doctor", "--json"], { home, userHome });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    const byName = Object.fromEntries(report.checks.map((check: { name: string }) => [check.name, check]));
    expect(byName.secrets).toMatchObject({ status: "fail", fix: `chmod 600 ${join(home, ".env")}` });
    expect(byName["provider ollama (llama3.1)"]).toMatchObject({
      status: "fail",
      fix: expect.stringContaining("ollama serve"),
    });
    expect(byName["provider ollama (llama3.1)"].detail).toContain(`connection refused 127.0.0.1:${port}`);
  });

  it("soul show creates missing files from templates and never overwrites edits", async () => {
    const { home, userHome } = makeHome();
    await runCli(["soul", "show"], { home, userHome });
    writeFileSync(join(home, "soul", "persona.md"), "# Persona\n\nSpeak like a pirate.\n");
    const result = await runCli(["soul", "show", "--json"], { home, userHome });
    const shown = JSON.parse(result.stdout);
    expect(shown.created).toEqual([]);
    expect(shown.prompt).toContain("Speak like a pirate.");
    expect(shown.prompt).not.toMatch(/\d{2}:\d{2}/);
  });
});
