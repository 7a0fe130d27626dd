import { mkdtempSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath, fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

describe("first run (built binary)", () => {
  it("run and chat without a provider stop with exit 2, say to run `mercury setup`, once", async () => {
    const { home } = makeHome();
    for (const args of [["run", "hi"], ["chat"]]) {
      const result = await runCli(args, { home });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("Run `mercury setup`");
      expect(result.stderr).toContain("openai has no API key");
      expect(result.stderr.split("no model provider is set up").length - 1).toBe(1);
      expect(result.stdout).toBe("");
    }
  });

  it("run --json / --output stream-json without a provider still prints the JSON result (isError, the error, exit 2)", async () => {
    const { home } = makeHome();
    const json = await runCli(["run", "hi", "--json"], { home });
    expect(json.code).toBe(2);
    const document = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(document).toMatchObject({ outcome: "failed", isError: true, exitCode: 2, taskId: null });
    expect(document.error).toContain("no model provider is set up: openai has no API key");
    expect(document.error).toContain("Run `mercury setup`");
    // The person reading stderr still gets the line, once.
    expect(json.stderr.split("no model provider is set up").length - 1).toBe(1);

    const stream = await runCli(["run", "hi", "--output", "stream-json"], { home });
    expect(stream.code).toBe(2);
    const lines = stream.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ type: "result", outcome: "failed", isError: true });

    // A contradictory command line is reported the same way to a script.
    const both = await runCli(["run", "hi", "--json", "--output", "stream-json"], {
      home,
      env: { MERCURY_PROVIDER: "ollama", MERCURY_MODEL: "m" },
    });
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stdout)).toMatchObject({
      isError: true,
      error: expect.stringContaining("exclude each other"),
    });
  });

  it("a rejected key (401) is explained as a rejected key with its fix, printed once", async () => {
    const fake = await server({ apiKey: "the-right-key-123" });
    const { home } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "hi"], {
      home,
      env: providerEnv(fake.url, { MERCURY_API_KEY: "a-wrong-key-456" }),
    });
    expect(result.code).toBe(1);
    const stated = "the API key was rejected by openai-compatible (401 Incorrect API key provided";
    expect(result.stderr).toContain(stated);
    expect(result.stderr).toContain("put the right key in MERCURY_API_KEY");
    expect(result.stderr.split(stated).length - 1).toBe(1);
    expect(result.stderr).toContain("✗ failed (the model provider failed)");
    expect(result.stderr).not.toContain("a-wrong-key-456");
  });

  it("scripted setup saves the key from the environment to .env with mode 0600, and says so", async () => {
    const fake = await server({
      replies: [{ text: "OK" }, { text: "Hello after setup." }],
      apiKey: "sk-scripted-key-7890",
    });
    const { home, userHome } = makeHome();
    const setup = await runCli(
      ["setup", "--provider", "openai-compatible", "--model", "fake-model", "--base-url", fake.url],
      { home, userHome, env: { MERCURY_API_KEY: "sk-scripted-key-7890" } },
    );
    expect(setup.code).toBe(0);
    expect(setup.stdout).toContain(`Saved the key as MERCURY_API_KEY in ${join(home, ".env")} (mode 0600)`);
    expect(statSync(join(home, ".env")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(home, ".env"), "utf8")).toContain("MERCURY_API_KEY=sk-scripted-key-7890");
    expect(setup.stdout).not.toContain("sk-scripted-key-7890");
    // The saved key is enough: no environment this time.
    const run = await runCli(["run", "hello", "--json"], { home, userHome });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: "responded", text: "Hello after setup." });
  });

  it("setup's next step names a command the shell has: `npx mercury chat` in a clone, `mercury chat` once linked", async () => {
    const fake = await server({ replies: [{ text: "OK" }, { text: "OK" }] });
    const { home, userHome } = makeHome();
    const args = ["setup", "--provider", "openai-compatible", "--model", "m", "--base-url", fake.url];
    const bare = mkdtempSync(join(tmpdir(), "mercury-path-"));
    const inClone = await runCli(args, {
      home,
      userHome,
      env: { PATH: `${bare}:${dirname(process.execPath)}` },
    });
    expect(inClone.code, inClone.stderr).toBe(0);
    expect(inClone.stdout).toContain("Next: `npx mercury chat`.");
    // `npm link` puts a `mercury` on the PATH that leads to this very program.
    symlinkSync(cliPath, join(bare, "mercury"));
    const linked = await runCli(args, {
      home,
      userHome,
      env: { PATH: `${bare}:${dirname(process.execPath)}` },
    });
    expect(linked.stdout).toContain("Next: `mercury chat`.");
  });

  it("scripted setup without a key says plainly that none was saved", async () => {
    const fake = await server({ replies: [{ text: "OK" }] });
    const { home, userHome } = makeHome();
    const setup = await runCli(
      ["setup", "--provider", "openai-compatible", "--model", "fake-model", "--base-url", fake.url],
      { home, userHome },
    );
    expect(setup.code).toBe(0);
    expect(setup.stdout).toContain("No API key was given, so none was saved");
    expect(() => statSync(join(home, ".env"))).toThrow();
  });
});

describe("mercury config (built binary)", () => {
  it("sets, gets and lists settings; an invalid value is refused with the key and the rule, file unchanged", async () => {
    const { home } = makeHome("# my settings\nmodel: old-model\n");
    const set = await runCli(["config", "set", "agent.maxSteps", "40"], { home });
    expect(set.code).toBe(0);
    expect((await runCli(["config", "get", "agent.maxSteps"], { home })).stdout).toBe("40\n");
    expect(readFileSync(join(home, "config.yaml"), "utf8")).toContain("# my settings");

    const bad = await runCli(["config", "set", "agent.maxSteps", "0"], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("agent.maxSteps: Too small");
    expect(bad.stderr).toContain("is unchanged");
    // The file is fine; only the value is wrong: no advice to delete it.
    expect(bad.stderr).not.toContain("delete the file");
    expect((await runCli(["config", "get", "agent.maxSteps"], { home })).stdout).toBe("40\n");

    const unknown = await runCli(["config", "set", "agent.apiKey", "x"], { home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown setting "agent.apiKey"');

    const list = await runCli(["config", "list", "--json"], { home });
    expect(JSON.parse(list.stdout)).toMatchObject({
      model: "old-model",
      "agent.maxSteps": 40,
      "budget.dailyUsd": null,
    });
  });
});

describe("mercury run for scripts (built binary)", () => {
  it("appends piped stdin to the task, and `-` reads the whole task from stdin", async () => {
    const fake = await server({ replies: [{ text: "Summary." }, { text: "Done." }] });
    const { home } = makeHome(fastRetryConfig);
    const piped = await runCli(["run", "summarize this"], {
      home,
      env: providerEnv(fake.url),
      input: "line one of the data\nline two\n",
    });
    expect(piped.code).toBe(0);
    const first = JSON.stringify(fake.chatRequests()[0]?.body);
    expect(first).toContain("summarize this");
    expect(first).toContain("line one of the data\\nline two");

    const dash = await runCli(["run", "-"], {
      home,
      env: providerEnv(fake.url),
      input: "the task from stdin\n",
    });
    expect(dash.code).toBe(0);
    const second = JSON.stringify(fake.chatRequests()[1]?.body);
    expect(second).toContain("the task from stdin");
    expect(second).not.toContain('"content":"-"');
  });

  it("`run -` with empty stdin is a usage error, not a task named '-'", async () => {
    const fake = await server();
    const { home } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "-"], { home, env: providerEnv(fake.url), input: "" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("stdin was empty");
    expect(fake.chatRequests()).toHaveLength(0);
  });

  it("--continue resumes the latest session; --json reports durationMs, steps and isError", async () => {
    const fake = await server({ replies: [{ text: "First." }, { text: "Second." }] });
    const { home } = makeHome(fastRetryConfig);
    const first = await runCli(["run", "remember the word kumquat", "--json"], {
      home,
      env: providerEnv(fake.url),
    });
    const firstReport = JSON.parse(first.stdout);
    expect(firstReport).toMatchObject({ outcome: "responded", isError: false, steps: 1 });
    expect(typeof firstReport.durationMs).toBe("number");
    expect(firstReport.durationMs).toBeGreaterThanOrEqual(0);

    const second = await runCli(["run", "what was the word?", "--json", "--continue"], {
      home,
      env: providerEnv(fake.url),
    });
    const secondReport = JSON.parse(second.stdout);
    expect(secondReport.sessionId).toBe(firstReport.sessionId);
    expect(JSON.stringify(fake.chatRequests()[1]?.body)).toContain("remember the word kumquat");
  });

  it("--continue with no earlier session is a usage error", async () => {
    const fake = await server();
    const { home } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "hi", "--continue"], { home, env: providerEnv(fake.url) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no earlier session to continue");
  });

  it("isError is true for a failed task", async () => {
    const fake = await server({ apiKey: "right-key-12345" });
    const { home } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "hi", "--json"], {
      home,
      env: providerEnv(fake.url, { MERCURY_API_KEY: "wrong-key-12345" }),
    });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: "failed", isError: true });
  });

  it("--output stream-json prints every event as a JSON line, then the result", async () => {
    const fake = await server({ replies: [{ text: ["Hel", "lo."] }] });
    const { home } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "hi", "--output", "stream-json"], {
      home,
      env: providerEnv(fake.url),
    });
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; text?: string });
    const types = lines.map((line) => line.type);
    expect(types[0]).toBe("task-start");
    expect(types).toContain("step-start");
    expect(types).toContain("task-end");
    expect(
      lines
        .filter((line) => line.type === "text-delta")
        .map((line) => line.text)
        .join(""),
    ).toBe("Hello.");
    expect(lines.at(-1)).toMatchObject({
      type: "result",
      outcome: "responded",
      isError: false,
      text: "Hello.",
    });
  });

  it("policy check exits 0 for allow, 1 for deny and 4 for ask", async () => {
    const { home, userHome, workspace } = makeHome();
    const options = { home, userHome, cwd: workspace };
    const allow = await runCli(["policy", "check", "--", "git", "status"], options);
    expect(allow.stdout).toMatch(/^allow/);
    expect(allow.code).toBe(0);
    const deny = await runCli(["policy", "check", "--json", "--", "rm", "-rf", "~"], options);
    expect(JSON.parse(deny.stdout)).toMatchObject({ decision: "deny" });
    expect(deny.code).toBe(1);
    const ask = await runCli(["policy", "check", "--", "npm", "install"], options);
    expect(ask.stdout).toMatch(/^ask/);
    expect(ask.code).toBe(4);
  });
});

describe("chat slash commands /model and /resume (built binary)", () => {
  it("/model switches the model the next request uses; /resume lists earlier sessions and continues one", async () => {
    const fake = await server({
      replies: [{ text: "About apples." }, { text: "About pears." }, { text: "Back to apples." }],
    });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const options = { home, userHome, cwd: workspace, env: providerEnv(fake.url) };
    await runCli(["chat"], { ...options, input: "tell me about apples\n" });
    const second = await runCli(["chat", "--new"], {
      ...options,
      input: "/model other-model\ntell me about pears\n/resume\n",
    });
    expect(second.stderr).toContain("model: openai-compatible/other-model for this chat");
    expect(fake.chatRequests()[1]?.body).toMatchObject({ model: "other-model" });
    expect(second.stderr).toMatch(/ 1\. .*\(current\) — tell me about pears/);
    expect(second.stderr).toMatch(/ 2\. .* — tell me about apples/);

    const third = await runCli(["chat", "--new"], { ...options, input: "/resume 3\nand more?\n" });
    expect(third.stderr).toContain("resumed the session from");
    const messages = JSON.stringify(fake.chatRequests()[2]?.body ?? null);
    expect(messages).toContain("tell me about apples");
    expect(messages).not.toContain("tell me about pears");
  });

  it("/help lists every command with its description in one column", async () => {
    const fake = await server({ replies: [] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const chat = await runCli(["chat"], {
      home,
      userHome,
      cwd: workspace,
      env: providerEnv(fake.url),
      input: "/help\n",
    });
    const lines = (chat.stdout + chat.stderr).split("\n").filter((line) => /^\/[a-z]+ +\S/.test(line));
    expect(lines.map((line) => line.split(/ +/)[0])).toContain("/permissions");
    const columns = new Set(lines.map((line) => line.search(/ \S/) + 1));
    expect(columns.size).toBe(1);
  });
});

describe("mercury telegram pair before the bot can answer (built binary)", () => {
  it("still prints the code, and says what keeps the bot from listening and how to fix each", async () => {
    const { home } = makeHome();
    const bare = await runCli(["telegram", "pair"], { home });
    expect(bare.code).toBe(0);
    expect(bare.stdout).toMatch(/^Pairing code: [A-Z2-9]{8}$/m);
    expect(bare.stderr).toContain("warning: the bot is not listening yet: TELEGRAM_BOT_TOKEN is not set");
    expect(bare.stderr).toContain("`mercury config set telegram.enabled true`");
    expect(bare.stderr).toContain("the daemon is not running (`mercury start`)");

    const configured = makeHome("telegram:\n  enabled: true\n");
    const json = await runCli(["telegram", "pair", "--json"], {
      home: configured.home,
      env: { TELEGRAM_BOT_TOKEN: "123456:abcdef" },
    });
    expect(JSON.parse(json.stdout)).toMatchObject({
      notReady: "the bot is not listening yet: the daemon is not running (`mercury start`)",
    });
  });
});
