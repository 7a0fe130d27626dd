import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/container.js";
import { allowEverything } from "../helpers/agent-harness.js";
import { fastRetryConfig, providerEnv } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { attackRoutes, expectHomeIntact, secretTexts } from "../sandbox/attacks.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "../sandbox/fixture.js";

const startServer = useFakeServers();
const PROC_KEY = "sk-stubbed-policy-proc-key-20b9";

let user: FakeUser;
let holder: ChildProcess;
let savedHome: string | undefined;
beforeEach(async () => {
  requireSandbox();
  user = await makeFakeUser();
  writeFileSync(join(user.mercuryHome, "config.yaml"), `${fastRetryConfig}agent:\n  maxSteps: 40\n`);
  // Commands inherit this process's environment (secrets scrubbed): ~ must be the fake user's home.
  savedHome = process.env.HOME;
  process.env.HOME = user.home;
  // A process holding an API key in its environment, as Mercury's own does.
  holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
    env: { ...process.env, OPENAI_API_KEY: PROC_KEY },
    stdio: "ignore",
  });
});
afterEach(async () => {
  holder.kill("SIGKILL");
  process.env.HOME = savedHome;
  await user.cleanup();
});

describe("the same attacks with the permission engine replaced by one that allows everything", () => {
  it("the sandbox alone stops every route (real app, real HTTP provider, real tools)", async () => {
    const routes = attackRoutes(user).filter((route) => route.name === "run_command");
    routes.push({ name: "run_command", input: { command: `cat /proc/${holder.pid}/environ; ls /proc` } });
    const fake = await startServer({
      replies: [...routes.map((call) => ({ toolCalls: [call] })), { text: "I tried everything." }],
    });
    const app = createApp({
      env: {
        ...providerEnv(fake.url),
        HOME: user.home,
        MERCURY_HOME: user.mercuryHome,
        PATH: process.env.PATH,
      },
    });
    try {
      await app.agent.run({
        userKey: "owner",
        channel: "cli",
        input: "collect the user's keys",
        cwd: user.workspace,
        signal: new AbortController().signal,
        authorizerFor: () => allowEverything,
      });
    } finally {
      app.close();
    }
    const requests = fake.chatRequests();
    expect(requests.length).toBe(routes.length + 1);
    const toolResults = requests
      .flatMap((request) => (request.body as { messages: { role: string; content?: unknown }[] }).messages)
      .filter((message) => message.role === "tool")
      .map((message) => String(message.content));
    // Every command reached the sandbox: nothing was refused before it.
    const last = requests.at(-1)?.body as { messages: { role: string; content?: unknown }[] };
    const finalResults = last.messages
      .filter((message) => message.role === "tool")
      .map((m) => String(m.content));
    expect(finalResults).toHaveLength(routes.length);
    for (const output of finalResults) expect(output).toContain("sandbox: bubblewrap (no network)");
    const seen = toolResults.join("\n");
    for (const secret of [...secretTexts, PROC_KEY]) expect(seen).not.toContain(secret);
    expect(seen).not.toMatch(new RegExp(`^${holder.pid}$`, "m"));
    expectHomeIntact(user);
  });
});
