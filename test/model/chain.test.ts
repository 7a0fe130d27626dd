import { describe, expect, it } from "vitest";
import { backoffDelay, ProviderChain } from "../../src/model/chain.js";
import { parseRetryAfter } from "../../src/model/errors.js";
import { UsageStore } from "../../src/storage/usage.js";
import { createHarness } from "../helpers/agent-harness.js";
import { echoTool } from "../helpers/echo-tool.js";

describe("provider chain", () => {
  it("retries a 500 with backoff, then succeeds on the same provider", async () => {
    const harness = createHarness({
      replies: [[{ error: { status: 500, message: "upstream broke" } }, { text: "ok now" }]],
    });
    const report = await harness.run("hi");
    expect(report.text).toBe("ok now");
    expect(harness.delays).toEqual([75]); // attempt 1: cap 100 ms, full jitter with random 0.5
    const retry = harness.events.find((event) => event.type === "provider-retry");
    expect(retry).toMatchObject({ provider: "p0", cause: expect.stringContaining("500") });
  });

  it("honours Retry-After on a 429", async () => {
    const harness = createHarness({
      replies: [[{ error: { status: 429, message: "slow down", retryAfterSeconds: 3 } }, { text: "ok" }]],
    });
    await harness.run("hi");
    expect(harness.delays).toEqual([3000]);
  });

  it("does not retry a 401; falls back to the next provider", async () => {
    const harness = createHarness({
      replies: [[{ error: { status: 401, message: "invalid API key" } }], [{ text: "from the fallback" }]],
    });
    const report = await harness.run("hi");
    expect(report).toMatchObject({ outcome: "responded", text: "from the fallback" });
    expect(harness.models[0]?.requests).toHaveLength(1);
    expect(harness.delays).toEqual([]);
    expect(harness.events.find((event) => event.type === "provider-fallback")).toMatchObject({
      from: "p0",
      to: "p1",
    });
  });

  it("names every provider and its real cause when all fail", async () => {
    const harness = createHarness({
      replies: [
        [{ error: { status: 401, message: "invalid API key" } }],
        [
          { error: { status: 503, message: "overloaded" } },
          { error: { status: 503, message: "overloaded" } },
        ],
      ],
      attempts: 2,
    });
    const report = await harness.run("hi");
    expect(report.outcome).toBe("failed");
    expect(report.reason).toBe(
      "every provider failed: p0: the API key was rejected by p0 (401 invalid API key); fix: put the right key in MERCURY_API_KEY (environment or $MERCURY_HOME/.env), or run `mercury setup`; p1: 503 overloaded",
    );
  });

  it("treats a stream cut before the finish chunk as interrupted, retries it, and never reports success from it", async () => {
    const harness = createHarness({
      replies: [
        [
          { cutBeforeFinish: true, text: ["half an "] },
          { cutBeforeFinish: true, text: ["half an "] },
        ],
      ],
      attempts: 2,
    });
    const report = await harness.run("hi");
    expect(report).toMatchObject({ outcome: "failed", endCause: "interrupted" });
    expect(harness.models[0]?.requests).toHaveLength(2);
  });

  it("counts usage over every step and every failed attempt, not just the last step", async () => {
    const harness = createHarness({
      replies: [
        [
          {
            toolCalls: [{ name: "echo", input: { text: "a" } }],
            usage: { inputTokens: 100, outputTokens: 20 },
          },
          { error: { status: 500, message: "boom" } },
          { text: "done", usage: { inputTokens: 150, outputTokens: 30 } },
        ],
      ],
      tools: [echoTool],
      prices: { "model-0": { input: 1, output: 2 } },
    });
    const report = await harness.run("two steps");
    expect(report.usage.inputTokens).toBe(250);
    expect(report.usage.outputTokens).toBe(50);
    expect(report.usage.costUsd).toBeCloseTo((250 * 1 + 50 * 2) / 1_000_000, 12);
    const store = new UsageStore(harness.database);
    expect(store.today().tokens).toBe(300);
    const rows = store.summary(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ attempts: 3, failedAttempts: 1, provider: "p0" });
  });

  it("pauses when the daily token budget is reached mid-task, overshooting by at most one step", async () => {
    const call = {
      toolCalls: [{ name: "echo", input: { text: "a" } }],
      usage: { inputTokens: 80, outputTokens: 40 },
    };
    const harness = createHarness({
      replies: [[call, call, call]],
      tools: [echoTool],
      settings: { budget: { dailyTokens: 100, dailyUsd: null } },
    });
    const report = await harness.run("expensive");
    expect(report).toMatchObject({ outcome: "paused", endCause: "aborted" });
    expect(report.reason).toContain("daily token budget reached");
    expect(harness.models[0]?.requests).toHaveLength(1);
  });

  it("computes jittered exponential backoff within bounds", () => {
    expect(backoffDelay(1, 100, 1000, () => 0)).toBe(50);
    expect(backoffDelay(3, 100, 1000, () => 1)).toBe(400);
    expect(backoffDelay(10, 100, 1000, () => 1)).toBe(1000);
  });

  it("parses Retry-After as seconds or as an HTTP date", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(
      parseRetryAfter("Wed, 21 Oct 2015 07:28:10 GMT", Date.parse("Wed, 21 Oct 2015 07:28:00 GMT")),
    ).toBe(10_000);
    expect(parseRetryAfter("soon")).toBeNull();
  });

  it("refuses an empty chain", () => {
    expect(
      () =>
        new ProviderChain([], {
          retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0, requestTimeoutMs: 1000 },
          prices: {},
        }),
    ).toThrow(/empty/);
  });
});
