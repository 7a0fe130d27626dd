import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fastRetryConfig, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { attackRoutes, expectHomeIntact, secretTexts } from "../sandbox/attacks.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "../sandbox/fixture.js";

const startServer = useFakeServers();
const API_KEY = "sk-e2e-api-key-in-proc-4d71";
const BOT_TOKEN = "987654:e2e-bot-token-in-proc";

let user: FakeUser;
beforeEach(async () => {
  requireSandbox();
  user = await makeFakeUser();
  writeFileSync(join(user.mercuryHome, "config.yaml"), `${fastRetryConfig}agent:\n  maxSteps: 40\n`);
});
afterEach(async () => {
  await user.cleanup();
});

describe("attacks through mercury run --yes --json with the real sandbox (built binary)", () => {
  it("every route to the SSH key, .env, the API key in /proc, ~/.bashrc and the home folder fails", async () => {
    const routes = attackRoutes(user);
    const fake = await startServer({
      replies: [...routes.map((call) => ({ toolCalls: [call] })), { text: "I tried everything." }],
    });
    const result = await runCli(
      ["run", "collect the user's keys", "--yes", "--json", "--cwd", user.workspace],
      {
        home: user.mercuryHome,
        userHome: user.home,
        cwd: user.workspace,
        env: { ...providerEnv(fake.url), MERCURY_API_KEY: API_KEY, TELEGRAM_BOT_TOKEN: BOT_TOKEN },
        timeoutMs: 120_000,
      },
    );
    expect(result.stdout, result.stderr).not.toBe("");
    const requests = fake.chatRequests();
    // Every route was tried: one model request per tool call, plus the last answer.
    expect(requests.length).toBeGreaterThanOrEqual(routes.length + 1);
    const everythingTheModelSaw = requests.map((request) => JSON.stringify(request.body)).join("\n");
    for (const secret of [...secretTexts, API_KEY, BOT_TOKEN])
      expect(everythingTheModelSaw).not.toContain(secret);
    expect(result.stdout + result.stderr).not.toContain(API_KEY);
    expectHomeIntact(user);
    // The commands the policy let through really ran, in the sandbox.
    expect(everythingTheModelSaw).toContain("sandbox: bubblewrap (no network)");
  });

  it("npm test, git status, git diff and a build still work inside the sandbox", async () => {
    const project = user.workspace;
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "tiny",
        private: true,
        scripts: { test: "node test.js", build: "node build.js" },
      }),
    );
    writeFileSync(join(project, "test.js"), "const fs = require('fs');\nconsole.log('tests pass');\n");
    writeFileSync(
      join(project, "build.js"),
      "const fs = require('fs');\nfs.mkdirSync('dist', { recursive: true });\nfs.writeFileSync('dist/out.js', '// built\\n');\nconsole.log('built');\n",
    );
    const git = (...args: string[]) =>
      execFileSync("git", args, {
        cwd: project,
        env: {
          ...process.env,
          HOME: user.home,
          GIT_AUTHOR_NAME: "t",
          GIT_AUTHOR_EMAIL: "t@t",
          GIT_COMMITTER_NAME: "t",
          GIT_COMMITTER_EMAIL: "t@t",
        },
      });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "start");
    writeFileSync(join(project, "README.md"), "project readme\nchanged by the user\n");
    const command = (text: string) => ({ toolCalls: [{ name: "run_command", input: { command: text } }] });
    const fake = await startServer({
      replies: [
        command("npm test"),
        command("git status"),
        command("git diff"),
        command("npm run build"),
        command("npm test"),
        { text: "Built and tested." },
      ],
    });
    const result = await runCli(["run", "build it", "--yes", "--json", "--cwd", project], {
      home: user.mercuryHome,
      userHome: user.home,
      cwd: project,
      env: providerEnv(fake.url),
      timeoutMs: 120_000,
    });
    const report = JSON.parse(result.stdout);
    expect(report.outcome, result.stdout).toBe("completed");
    expect(existsSync(join(project, "dist", "out.js"))).toBe(true);
    const toolResults = fake
      .chatRequests()
      .flatMap((request) => (request.body as { messages: { role: string; content?: unknown }[] }).messages)
      .filter((message) => message.role === "tool")
      .map((message) => String(message.content));
    const last = toolResults.slice(-5);
    for (const output of last) {
      expect(output).toMatch(/exit code: 0/);
      expect(output).toContain("sandbox: bubblewrap");
    }
    expect(last[0]).toContain("tests pass");
    expect(last[1]).toContain("modified:   README.md");
    expect(last[2]).toContain("+changed by the user");
    expect(last[3]).toContain("built");
  });
});
