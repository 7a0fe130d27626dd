import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const startServer = useFakeServers();
const server = (replies: Parameters<FakeOpenAIServer["push"]>) => startServer({ replies });

function toolMessages(body: unknown): { role: string; content?: unknown; tool_calls?: unknown }[] {
  return (body as { messages: { role: string; content?: unknown; tool_calls?: unknown }[] }).messages;
}

describe("mercury run with tools (built binary)", () => {
  it("runs a tool call round trip: the model reads a file and answers from it", async () => {
    const fake = await server([
      { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
      { text: "The notes say: buy milk." },
    ]);
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    writeFileSync(join(workspace, "notes.txt"), "buy milk\n");
    const result = await runCli(["run", "what do my notes say?", "--json", "--cwd", workspace], {
      home,
      userHome,
      env: providerEnv(fake.url),
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      outcome: "responded",
      text: "The notes say: buy milk.",
    });
    const second = toolMessages(fake.chatRequests()[1]?.body);
    const toolResult = second.find((message) => message.role === "tool");
    expect(String(toolResult?.content)).toContain("buy milk");
    // The read is in the audit log, shown in local time like `mercury logs` (here UTC+9).
    const log = await runCli(["policy", "log", "-n", "1"], { home, userHome, env: { TZ: "Asia/Tokyo" } });
    expect(log.code, log.stderr).toBe(0);
    const [time = "", rest = ""] = log.stdout.split(/ {2}(.*)/s);
    expect(time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/);
    const utcHour = new Date().getUTCHours();
    expect([(utcHour + 9) % 24, (utcHour + 10) % 24]).toContain(Number(time.slice(11, 13)));
    expect(rest).toMatch(/^allowed +allow +\S+/);
    expect(log.stdout).toContain("notes.txt");
  });

  it("text output: one line per tool call with how it ended, a failure in red", async () => {
    const fake = await server([
      { toolCalls: [{ name: "read_file", input: { path: "missing.txt" } }] },
      { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
      { text: "Read it." },
    ]);
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    writeFileSync(join(workspace, "notes.txt"), "buy milk\n");
    const result = await runCli(["run", "read my notes", "--cwd", workspace], {
      home,
      userHome,
      env: providerEnv(fake.url, { FORCE_COLOR: "1", NO_COLOR: "" }),
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split("\n");
    const failed = lines.find((line) => line.includes("✗ read_file missing.txt — "));
    const read = lines.find((line) => line.includes("✓ read_file notes.txt — "));
    expect(failed?.startsWith("\u001b[31m✗ read_file missing.txt — ")).toBe(true);
    expect(failed).toMatch(/not found|no such|does not exist/i);
    expect(read?.startsWith("\u001b[32m✓ read_file notes.txt — ")).toBe(true);
    // No raw JSON of the call's input.
    expect(result.stderr).not.toContain('{"path":');
    expect(result.stdout).toContain("Read it.");
  });

  it("without --yes refuses an action that needs approval and reports the refusal to the model", async () => {
    const fake = await server([
      { toolCalls: [{ name: "run_command", input: { command: "touch made-by-agent.txt" } }] },
      { text: "I could not run it: it needs approval." },
    ]);
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "create a file", "--json", "--cwd", workspace], {
      home,
      userHome,
      env: providerEnv(fake.url),
    });
    expect(result.code).toBe(0);
    expect(existsSync(join(workspace, "made-by-agent.txt"))).toBe(false);
    const toolResult = toolMessages(fake.chatRequests()[1]?.body).find((message) => message.role === "tool");
    expect(String(toolResult?.content)).toContain("rerun with --yes");
  });

  it("with --yes runs it, but a secret path stays refused", async () => {
    const fake = await server([
      { toolCalls: [{ name: "run_command", input: { command: "touch made-by-agent.txt" } }] },
      { toolCalls: [{ name: "read_file", input: { path: "../user/.ssh/id_rsa" } }] },
      { text: "Done, and I was not allowed to read the key." },
    ]);
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(userHome, ".ssh"));
    writeFileSync(join(userHome, ".ssh", "id_rsa"), "PRIVATE KEY");
    const result = await runCli(["run", "create a file", "--json", "--yes", "--cwd", workspace], {
      home,
      userHome,
      env: providerEnv(fake.url),
    });
    // The file changed in a folder that is no project: completed, saying there are no checks (issue 13).
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      outcome: "completed",
      verification: [],
      filesChanged: [{ path: "made-by-agent.txt", added: 0, removed: 0 }],
    });
    expect(report.reason).toContain("no checks to run here");
    expect(existsSync(join(workspace, "made-by-agent.txt"))).toBe(true);
    const third = JSON.stringify(fake.chatRequests()[2]?.body);
    expect(third).not.toContain("PRIVATE KEY");
    expect(third).toContain("refused");
  });

  it("pauses with exit 3 when the daily token budget is reached mid-task", async () => {
    const call = {
      toolCalls: [{ name: "list_dir", input: { path: "." } }],
      usage: { inputTokens: 80, outputTokens: 40 },
    };
    const fake = await server([call, call, call]);
    const { home, userHome, workspace } = makeHome(`${fastRetryConfig}budget:\n  dailyTokens: 100\n`);
    const result = await runCli(["run", "list forever", "--json", "--cwd", workspace], {
      home,
      userHome,
      env: providerEnv(fake.url),
    });
    expect(result.code).toBe(3);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ outcome: "paused", usage: { inputTokens: 80, outputTokens: 40 } });
    expect(report.reason).toContain("daily token budget reached");
    expect(fake.chatRequests()).toHaveLength(1);
    const usage = await runCli(["usage", "--json"], { home, userHome });
    expect(JSON.parse(usage.stdout).today.tokens).toBe(120);
  });

  it("keeps the transcript, tool calls included, across a process restart", async () => {
    const fake = await server([
      { toolCalls: [{ id: "call_read_1", name: "read_file", input: { path: "secret-word.txt" } }] },
      { text: "The word is pineapple." },
      { text: "You asked about the secret word; it was pineapple." },
    ]);
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    writeFileSync(join(workspace, "secret-word.txt"), "pineapple\n");
    const first = await runCli(["run", "read secret-word.txt", "--json", "--cwd", workspace], {
      home,
      userHome,
      env: providerEnv(fake.url),
    });
    const { sessionId } = JSON.parse(first.stdout);
    const second = await runCli(
      ["run", "what did I ask before?", "--json", "--session", sessionId, "--cwd", workspace],
      {
        home,
        userHome,
        env: providerEnv(fake.url),
      },
    );
    expect(second.code).toBe(0);
    const messages = toolMessages(fake.chatRequests()[2]?.body);
    const roles = messages.map((message) => message.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(JSON.stringify(messages[2]?.tool_calls)).toContain("call_read_1");
    expect(String(messages[3]?.content)).toContain("pineapple");
    expect(readFileSync(join(home, "mercury.db")).length).toBeGreaterThan(0);
  });
});
