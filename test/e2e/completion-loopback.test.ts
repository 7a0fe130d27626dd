import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EventBus } from "../../src/agent/events.js";
import { Agent } from "../../src/agent/runtime.js";
import { ProviderChain } from "../../src/model/chain.js";
import { defaultModelFactory } from "../../src/model/providers.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import { makeProject, realTools } from "../agent/completion/fixtures.js";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";
import type { ScriptedReply } from "../fakes/script.js";
import { allowEverything } from "../helpers/agent-harness.js";

/** One home per test file: files run in parallel and prune their task baselines under it. */
const testHome = mkdtempSync(join(tmpdir(), "mercury-test-home-"));

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((entry) => entry.close()));
});

/** An Agent whose provider is the real openai-compatible adapter talking to the loopback server. */
async function loopbackAgent(replies: ScriptedReply[], stall: { softMs: number; hardMs: number }) {
  const fake = await startFakeOpenAIServer({ replies });
  servers.push(fake);
  const entry = { name: "openai-compatible" as const, model: "fake-model", baseUrl: fake.url };
  const chain = new ProviderChain(
    [{ label: "loopback", entry, model: defaultModelFactory(entry, "sk-test"), problem: null }],
    {
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 5, requestTimeoutMs: 30_000 },
      prices: {},
    },
  );
  const bus = new EventBus();
  const notices: string[] = [];
  bus.subscribe((event) => {
    if (event.type === "notice") notices.push(event.message);
  });
  const agent = new Agent(
    openMemoryDatabase(),
    chain,
    realTools(),
    bus,
    {
      home: testHome,
      maxSteps: 10,
      maxOutputTokens: 1000,
      contextWindow: 100_000,
      historyReserveTokens: 1000,
      budget: { dailyTokens: null, dailyUsd: null },
      stall,
    },
    { systemPrompt: async () => "You are a test agent." },
  );
  const run = (input: string, cwd: string) =>
    agent.run({
      userKey: "owner",
      channel: "test",
      input,
      cwd,
      signal: new AbortController().signal,
      authorizerFor: () => allowEverything,
    });
  return { fake, run, notices };
}

describe("watchdog over the loopback provider (real HTTP adapter)", () => {
  it("a provider that accepts the request and never answers is paused as stalled, after a pulse", async () => {
    const { run, notices } = await loopbackAgent([{ hang: true }], { softMs: 200, hardMs: 700 });
    const report = await run("hello", makeProject({}));
    expect(report).toMatchObject({ outcome: "paused", endCause: "aborted" });
    expect(report.reason).toMatch(/^stalled: no activity for/);
    expect(notices.some((n) => n.startsWith("still working"))).toBe(true);
  });

  it("a command that streams output for longer than the hard limit finishes", async () => {
    const { run } = await loopbackAgent(
      [
        {
          toolCalls: [
            {
              name: "run_command",
              input: { command: "for i in 1 2 3 4 5 6 7 8; do echo step $i; sleep 0.2; done" },
            },
          ],
        },
        { text: "Eight steps printed." },
      ],
      { softMs: 200, hardMs: 700 },
    );
    const report = await run("count", makeProject({}));
    expect(report).toMatchObject({
      outcome: "responded",
      endCause: "text-stop",
      text: "Eight steps printed.",
    });
  });
});
