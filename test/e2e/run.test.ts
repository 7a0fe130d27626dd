import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

describe("mercury run (built binary, loopback OpenAI-compatible server)", () => {
  it("streams an answer to stdout and reports it in JSON", async () => {
    const fake = await server({
      replies: [{ text: "Hello from the fake model." }, { text: "Second answer." }],
    });
    const { home, workspace } = makeHome(fastRetryConfig);
    const plain = await runCli(["run", "say hello"], { home, cwd: workspace, env: providerEnv(fake.url) });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("Hello from the fake model.");
    expect(plain.stderr).toContain("responded (text-stop)");

    const json = await runCli(["run", "again", "--json"], {
      home,
      cwd: workspace,
      env: providerEnv(fake.url),
    });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      outcome: "responded",
      endCause: "text-stop",
      text: "Second answer.",
      filesChanged: [],
      verification: [],
      usage: { inputTokens: 10, outputTokens: 5, costUsd: 0 },
    });
    expect(typeof report.taskId).toBe("string");
    const body = fake.chatRequests()[1]?.body as { model: string; stream: boolean };
    expect(body).toMatchObject({ model: "fake-model", stream: true });
  });

  it("retries a 500 and then succeeds", async () => {
    const fake = await server({
      replies: [{ error: { status: 500, message: "internal boom" } }, { text: "Recovered." }],
    });
    const { home, workspace } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "hi", "--json"], {
      home,
      cwd: workspace,
      env: providerEnv(fake.url),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: "responded", text: "Recovered." });
    expect(fake.chatRequests()).toHaveLength(2);
  });

  it("falls back when the primary rejects the key with 401", async () => {
    const primary = await server({ apiKey: "the-right-key" });
    const backup = await server({ replies: [{ text: "Backup here." }] });
    const { home, workspace } = makeHome(
      `${fastRetryConfig}providers:\n  - name: openai-compatible\n    model: fake-model\n    baseUrl: ${primary.url}\n    label: primary\n  - name: openai-compatible\n    model: fake-model\n    baseUrl: ${backup.url}\n    label: backup\n`,
    );
    const result = await runCli(["run", "hi", "--json"], {
      home,
      cwd: workspace,
      env: { MERCURY_API_KEY: "wrong-key-123" },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: "responded", text: "Backup here." });
    expect(primary.chatRequests()).toHaveLength(1); // 401 is not retried
  });

  it("names every provider's real cause when all fail, and exits 1", async () => {
    const primary = await server({ apiKey: "the-right-key" });
    const closedPort = await server();
    const deadUrl = closedPort.url;
    await closedPort.close();
    const { home, workspace } = makeHome(
      `${fastRetryConfig}providers:\n  - name: openai-compatible\n    model: fake-model\n    baseUrl: ${primary.url}\n    label: primary\n  - name: ollama\n    model: llama3.1\n    baseUrl: ${deadUrl}\n`,
    );
    const result = await runCli(["run", "hi", "--json"], {
      home,
      cwd: workspace,
      env: { MERCURY_API_KEY: "wrong-key-123" },
    });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.outcome).toBe("failed");
    const port = new URL(deadUrl).port;
    expect(report.reason).toMatch(
      new RegExp(
        `primary: the API key was rejected by primary \\(401 Incorrect API key provided.*; ollama: connection refused 127\\.0\\.0\\.1:${port}`,
      ),
    );
    expect(result.stdout + result.stderr).not.toContain("wrong-key-123");
  });

  it("stops with exit 2 and names the key when config.yaml is invalid", async () => {
    const { home, workspace } = makeHome("agent:\n  maxSteps: many\n");
    const result = await runCli(["run", "hi", "--json"], { home, cwd: workspace });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(join(home, "config.yaml"));
    expect(result.stderr).toContain("agent.maxSteps");
    // --json: the script still gets its document, with the same words and exit code.
    const document = JSON.parse(result.stdout) as { isError: boolean; error: string; exitCode: number };
    expect(document).toMatchObject({ outcome: "failed", isError: true, exitCode: 2 });
    expect(document.error).toContain("agent.maxSteps");
  });

  it("exits 2 on a usage error", async () => {
    const { home, workspace } = makeHome();
    const result = await runCli(["run"], { home, cwd: workspace });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing required argument");
  });

  it("refuses a database from a newer Mercury with exit 2", async () => {
    const { home, workspace } = makeHome();
    const Database = (await import("better-sqlite3")).default;
    const raw = new Database(join(home, "mercury.db"));
    raw.pragma("user_version = 999");
    raw.close();
    writeFileSync(join(home, "config.yaml"), "");
    const result = await runCli(["run", "hi"], {
      home,
      cwd: workspace,
      env: providerEnv("http://127.0.0.1:9/v1"),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("written by a newer version");
  });
});
