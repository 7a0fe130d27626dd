import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";
import type { ScriptedReply } from "../fakes/script.js";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";

const servers: FakeOpenAIServer[] = [];
async function server(replies: ScriptedReply[]) {
  const started = await startFakeOpenAIServer({ replies });
  servers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((entry) => entry.close()));
});

function gitWorkspace(workspace: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) writeFileSync(join(workspace, path), content);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: workspace, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Mercury Test");
  git("config", "user.email", "test@example.invalid");
  git("add", "-A");
  git("commit", "-q", "-m", "initial");
}

const pkg = (script: string) => JSON.stringify({ name: "w", version: "1.0.0", scripts: { test: script } });

async function mercuryRun(
  fake: FakeOpenAIServer,
  task: string,
  options: { yes?: boolean; config?: string; setup?: (workspace: string) => void } = {},
) {
  const { home, userHome, workspace } = makeHome(options.config ?? fastRetryConfig);
  options.setup?.(workspace);
  const args = ["run", task, "--json", "--cwd", workspace, ...(options.yes ? ["--yes"] : [])];
  const result = await runCli(args, { home, userHome, env: providerEnv(fake.url), timeoutMs: 60_000 });
  return { ...result, json: JSON.parse(result.stdout) as Record<string, unknown>, workspace };
}

describe("mercury run --json: honest completion (built binary, loopback provider)", () => {
  it("a failing npm test is not completed: exit 1, outcome failed, verification and per-file stats", async () => {
    const fake = await server([
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "one\ntwo\n" } }] },
      { text: "Done." },
      { text: "Done." },
      { text: "Done." },
    ]);
    const run = await mercuryRun(fake, "add a line", {
      yes: true,
      setup: (ws) => gitWorkspace(ws, { "package.json": pkg('node -e "process.exit(1)"'), "a.txt": "one\n" }),
    });
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({
      outcome: "failed",
      endCause: "text-stop",
      filesChanged: [{ path: "a.txt", added: 1, removed: 0 }],
      verification: [{ command: "npm test", exitCode: 1 }],
    });
    expect(String(run.json.reason)).toContain("verification failed");
  }, 90_000);

  it("a passing npm test after the change: exit 0, completed", async () => {
    const fake = await server([
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "one\ntwo\n" } }] },
      { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
      { text: "Added the line; tests pass." },
    ]);
    const run = await mercuryRun(fake, "add a line", {
      yes: true,
      setup: (ws) => gitWorkspace(ws, { "package.json": pkg('node -e "process.exit(0)"'), "a.txt": "one\n" }),
    });
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      outcome: "completed",
      filesChanged: [{ path: "a.txt", added: 1, removed: 0 }],
      verification: [{ command: "npm test", exitCode: 0 }],
    });
  }, 90_000);

  it("a stream cut before the finish chunk on every retry: exit 1, interrupted, never completed", async () => {
    const cut: ScriptedReply = { cutBeforeFinish: true, text: ["I have finished the "] };
    const fake = await server([cut, cut, cut]);
    const run = await mercuryRun(fake, "do it");
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ outcome: "failed", endCause: "interrupted" });
    expect(String(run.json.text)).not.toContain("I have finished");
    expect(fake.chatRequests()).toHaveLength(3);
  });

  it("the step budget runs out without progress: exit 3, steps-exhausted, paused", async () => {
    const list: ScriptedReply = { toolCalls: [{ name: "list_dir", input: { path: "." } }] };
    const fake = await server([list, list]);
    const run = await mercuryRun(fake, "look around", {
      config: `${fastRetryConfig}agent:\n  maxSteps: 2\n`,
    });
    expect(run.code).toBe(3);
    expect(run.json).toMatchObject({ outcome: "paused", endCause: "steps-exhausted" });
  });

  it('"make me a workout plan": exit 0, responded, no escalation, one request', async () => {
    const fake = await server([{ text: "Monday: squats. Wednesday: I'll have you run. Let me know!" }]);
    const run = await mercuryRun(fake, "make me a workout plan");
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      outcome: "responded",
      endCause: "text-stop",
      filesChanged: [],
      verification: [],
    });
    expect(fake.chatRequests()).toHaveLength(1);
  });

  it("narration with an open plan escalates, then pauses naming the failed tool: exit 3", async () => {
    const narrate: ScriptedReply = { text: "I'll read the config now." };
    const fake = await server([
      { toolCalls: [{ name: "update_plan", input: { items: [{ text: "read config.json", done: false }] } }] },
      { toolCalls: [{ name: "read_file", input: { path: "config.json" } }] },
      ...Array.from({ length: 11 }, () => narrate),
    ]);
    const run = await mercuryRun(fake, "summarize config.json");
    expect(run.code).toBe(3);
    expect(run.json).toMatchObject({ outcome: "paused", endCause: "text-stop" });
    expect(String(run.json.reason)).toContain("Blocker: the last failed tool call was read_file:");
    const bodies = fake.chatRequests().map((request) => JSON.stringify(request.body));
    expect(bodies).toHaveLength(13);
    expect(bodies[3]).toContain("listed by Mercury");
    expect(bodies[4]).toContain('"tool_choice":"required"');
  });
});
