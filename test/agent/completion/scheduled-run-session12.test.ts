import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WorkLedger } from "../../../src/agent/ledger.js";
import { createLogger } from "../../../src/app/logger.js";
import { Redactor } from "../../../src/config/secrets.js";
import { JobStore } from "../../../src/scheduler/jobs.js";
import { ScheduledRunner } from "../../../src/scheduler/runner.js";
import { tick } from "../../../src/scheduler/tick.js";
import { allowEverything, createHarness } from "../../helpers/agent-harness.js";
import { echoTool } from "../../helpers/echo-tool.js";

/**
 * Session 12: a scheduled run stopped by the daemon's shutdown (or restart). Its delivered message
 * said "stopped by the user" (nobody is at the keyboard of a scheduled run), and the next run's plain
 * "fixed, all good" said nothing of the interrupted one.
 */
describe("a scheduled run the daemon stopped is reported as such, and the next run says so", () => {
  it("the message names the shutdown; the next run's plain answer notes the interrupted run", async () => {
    let now = Date.parse("2026-06-01T08:00:00Z");
    const clock = { now: () => new Date(now) };
    const harness = createHarness({
      replies: [[{ hang: true }, { text: "Fixed it, all tests pass." }]],
      tools: [echoTool],
      clock,
      attempts: 1,
    });
    const store = new JobStore(harness.database, clock);
    const workspace = mkdtempSync(join(tmpdir(), "mercury-s12-sched-"));
    const delivered: string[] = [];
    const runner = new ScheduledRunner({
      database: harness.database,
      clock,
      store,
      ledger: new WorkLedger(harness.database, clock),
      agent: harness.agent,
      tools: [echoTool],
      logger: createLogger(join(workspace, "logs"), "silent", new Redactor({})),
      retry: { attempts: 1, baseDelayMs: 60_000 },
      authorizerFor: () => allowEverything,
      deliver: async (_job, _taskId, message) => {
        delivered.push(message);
        return "sent";
      },
    });
    const spec = { kind: "interval" as const, minutes: 10, anchorMs: now };
    const job = store.create({
      name: "fix",
      spec,
      task: "fix the failing test",
      owner: "owner",
      workspace,
      delivery: "telegram:42",
      silent: false,
      graceMs: 60_000,
      budget: { runTokens: null, runUsd: null, dayTokens: null, dayUsd: null },
      permissions: null,
      nextDueMs: now + 600_000,
      createdBy: "test",
    });

    now += 600_000;
    const [first] = tick(store, now).fire;
    if (!first) throw new Error("not fired");
    const running = runner.start(job, first.run);
    const model = harness.models[0];
    await new Promise<void>((resolve) => {
      const check = () => ((model?.requests.length ?? 0) >= 1 ? resolve() : setImmediate(check));
      check();
    });
    await runner.stopAll("Mercury was stopped (SIGTERM)");
    await running;
    expect(store.requireRun(first.run.id).outcome).toBe("cancelled");
    expect(delivered[0]).toContain("interrupted: Mercury was stopped (SIGTERM)");
    expect(delivered[0]).not.toContain("stopped by the user");

    now += 600_000;
    const [second] = tick(store, now).fire;
    if (!second) throw new Error("not fired");
    await runner.start(job, second.run);
    expect(store.requireRun(second.run.id).outcome).toBe("responded");
    expect(delivered[1]).toContain("Fixed it, all tests pass.");
    expect(delivered[1]).toMatch(/Note: .*previous run .* is cancelled \(interrupted: Mercury was stopped/);
  });
});
