import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../../src/agent/clock.js";
import { type AgentEvent, EventBus } from "../../src/agent/events.js";
import { Agent, type AgentSettings, type TaskRequest } from "../../src/agent/runtime.js";
import { ProviderChain } from "../../src/model/chain.js";
import type { ProviderHandle } from "../../src/model/providers.js";
import { openMemoryDatabase, type SqliteDatabase } from "../../src/storage/database.js";
import type { AnyTool, AuthorizationRequest, AuthorizationResult } from "../../src/tools/types.js";
import type { ScriptedReply } from "../fakes/script.js";
import { ScriptedModel } from "../fakes/scripted-model.js";

/** One home per test file: files run in parallel and prune their task baselines under it. */
const testHome = mkdtempSync(join(tmpdir(), "mercury-test-home-"));

export interface Harness {
  database: SqliteDatabase;
  bus: EventBus;
  events: AgentEvent[];
  models: ScriptedModel[];
  agent: Agent;
  chain: ProviderChain;
  delays: number[];
  run(input: string, overrides?: Partial<TaskRequest>): ReturnType<Agent["run"]>;
}

export const allowEverything = async (_request: AuthorizationRequest): Promise<AuthorizationResult> => ({
  allowed: true,
  rule: "test.allow",
});

/** An Agent over an in-memory database and scripted models (one per provider in the chain). */
export function createHarness(options: {
  replies?: ScriptedReply[][];
  tools?: AnyTool[];
  settings?: Partial<AgentSettings>;
  database?: SqliteDatabase;
  clock?: Clock;
  prices?: Record<string, { input: number; output: number }>;
  attempts?: number;
}): Harness {
  const database = options.database ?? openMemoryDatabase();
  const bus = new EventBus();
  const events: AgentEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const models = (options.replies ?? [[]]).map(
    (replies, index) => new ScriptedModel(replies, { provider: `p${index}`, modelId: `model-${index}` }),
  );
  const handles: ProviderHandle[] = models.map((model, index) => ({
    label: `p${index}`,
    entry: { name: "openai-compatible", model: `model-${index}`, baseUrl: "http://127.0.0.1:9/v1" },
    model,
    problem: null,
  }));
  const delays: number[] = [];
  const chain = new ProviderChain(handles, {
    retry: { attempts: options.attempts ?? 3, baseDelayMs: 100, maxDelayMs: 1000, requestTimeoutMs: 5000 },
    prices: options.prices ?? {},
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
  });
  const agent = new Agent(
    database,
    chain,
    options.tools ?? [],
    bus,
    {
      home: testHome,
      maxSteps: 10,
      maxOutputTokens: 1000,
      contextWindow: 100_000,
      historyReserveTokens: 1000,
      budget: { dailyTokens: null, dailyUsd: null },
      ...options.settings,
    },
    { systemPrompt: async () => "You are a test agent." },
    options.clock,
  );
  return {
    database,
    bus,
    events,
    models,
    agent,
    chain,
    delays,
    run: (input, overrides = {}) =>
      agent.run({
        userKey: "owner",
        channel: "test",
        input,
        cwd: process.cwd(),
        signal: new AbortController().signal,
        authorizerFor: () => allowEverything,
        ...overrides,
      }),
  };
}
