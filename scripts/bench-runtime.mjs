#!/usr/bin/env node
// Start-up time of `mercury --version` and the agent loop's own overhead per step (model excluded).
// Each number is compared with a baseline measured in the same run (these machines are noisy).
// Usage: node scripts/bench-runtime.mjs [--json] [--runs N] [--steps N]
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";

const root = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const json = args.includes("--json");
const option = (name, fallback) => {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const runs = option("--runs", 20);
const steps = option("--steps", 200);

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function timeProcess(command, commandArgs) {
  const samples = [];
  for (let index = 0; index < runs; index++) {
    const started = performance.now();
    const result = spawnSync(command, commandArgs, {
      env: { ...process.env, MERCURY_HOME: mkdtempSync(join(tmpdir(), "mb-")) },
    });
    if (result.status !== 0)
      throw new Error(`${command} ${commandArgs.join(" ")} exited ${result.status}: ${result.stderr}`);
    samples.push(performance.now() - started);
  }
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

const baseline = timeProcess(process.execPath, ["-e", "0"]);
const startup = timeProcess(process.execPath, [join(root, "dist/cli.js"), "--version"]);

// An instant in-process model: every call answers at once with one tool call (or the final text).
function instantModel(totalSteps) {
  let calls = 0;
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 5, text: 5, reasoning: 0 },
  };
  return {
    specificationVersion: "v3",
    provider: "instant",
    modelId: "instant",
    supportedUrls: {},
    async doGenerate() {
      throw new Error("not used");
    },
    async doStream() {
      calls += 1;
      const last = calls >= totalSteps;
      const parts = [{ type: "stream-start", warnings: [] }];
      if (last) {
        parts.push(
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "done" },
          { type: "text-end", id: "t" },
        );
      } else {
        parts.push({
          type: "tool-call",
          toolCallId: `c${calls}`,
          toolName: "echo",
          input: JSON.stringify({ text: `step ${calls}` }),
        });
      }
      parts.push({
        type: "finish",
        finishReason: { unified: last ? "stop" : "tool-calls", raw: undefined },
        usage,
      });
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

const { Agent } = await import(join(root, "dist/agent/runtime.js"));
const { EventBus } = await import(join(root, "dist/agent/events.js"));
const { ProviderChain } = await import(join(root, "dist/model/chain.js"));
const { openDatabase } = await import(join(root, "dist/storage/database.js"));

const echo = {
  name: "echo",
  description: "echo",
  inputSchema: z.object({ text: z.string() }),
  mutating: false,
  async execute(input) {
    return { ok: true, output: input.text };
  },
};

// Baseline: the same steps driven straight through the SDK (same growing history, same tool), with
// none of our work around it: no transcript, no events, no budget checks, no tool executor.
const { streamText, jsonSchema, tool } = await import("ai");
const baselineTools = {
  echo: tool({ description: "echo", inputSchema: jsonSchema(z.toJSONSchema(echo.inputSchema)) }),
};
async function modelOnlyRun(count) {
  const model = instantModel(count);
  const messages = [{ role: "user", content: "go" }];
  const started = performance.now();
  for (let index = 0; index < count; index++) {
    const result = streamText({ model, system: "bench", messages, tools: baselineTools, maxRetries: 0 });
    for await (const _part of result.fullStream) {
    }
    const response = await result.response;
    messages.push(...response.messages);
    for (const call of await result.toolCalls) {
      messages.push({
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            output: { type: "text", value: call.input.text },
          },
        ],
      });
    }
  }
  return (performance.now() - started) / count;
}

const database = openDatabase(join(mkdtempSync(join(tmpdir(), "mb-")), "mercury.db"));
async function agentRun(count) {
  const chain = new ProviderChain(
    [
      {
        label: "instant",
        entry: { name: "openai-compatible", model: "instant", baseUrl: "http://127.0.0.1:9/v1" },
        model: instantModel(count),
        problem: null,
      },
    ],
    { retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0, requestTimeoutMs: 60_000 }, prices: {} },
  );
  const agent = new Agent(
    database,
    chain,
    [echo],
    new EventBus(),
    {
      home: tmpdir(),
      maxSteps: count + 1,
      maxOutputTokens: 1000,
      contextWindow: 1_000_000,
      historyReserveTokens: 1000,
      budget: { dailyTokens: null, dailyUsd: null },
    },
    { systemPrompt: async () => "bench" },
  );
  const started = performance.now();
  const report = await agent.run({
    userKey: "owner",
    channel: "bench",
    input: "go",
    cwd: tmpdir(),
    signal: new AbortController().signal,
    authorizerFor: () => async () => ({ allowed: true, rule: "bench" }),
  });
  if (report.outcome !== "responded") throw new Error(`bench task ended ${report.outcome}: ${report.reason}`);
  return (performance.now() - started) / count;
}

// Warm up both paths (JIT), then alternate rounds and take the median of each.
await modelOnlyRun(10);
await agentRun(10);
const baselineRounds = [];
const agentRounds = [];
for (let round = 0; round < 5; round++) {
  baselineRounds.push(await modelOnlyRun(steps));
  agentRounds.push(await agentRun(steps));
}
const modelPerStep = percentile(baselineRounds, 50);
const loopPerStep = percentile(agentRounds, 50);

const result = {
  startup: {
    mercuryVersionMs: startup,
    nodeBaselineMs: baseline,
    ratioP50: startup.p50 / baseline.p50,
    runs,
  },
  loop: {
    steps,
    perStepMs: loopPerStep,
    modelOnlyPerStepMs: modelPerStep,
    overheadPerStepMs: loopPerStep - modelPerStep,
    ratio: loopPerStep / modelPerStep,
  },
};
if (json) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  console.log(
    `mercury --version: p50 ${startup.p50.toFixed(0)} ms, p95 ${startup.p95.toFixed(0)} ms (node -e 0: p50 ${baseline.p50.toFixed(0)} ms; ratio ${result.startup.ratioP50.toFixed(2)}x) over ${runs} runs`,
  );
  console.log(
    `agent loop: ${loopPerStep.toFixed(2)} ms/step in total, model alone ${modelPerStep.toFixed(2)} ms/step -> own overhead ${result.loop.overheadPerStepMs.toFixed(2)} ms/step over ${steps} steps (transcript persisted to SQLite each step)`,
  );
}
