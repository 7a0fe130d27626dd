import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { WorkLedger } from "../../src/agent/ledger.js";
import { createLogger } from "../../src/app/logger.js";
import { Redactor } from "../../src/config/secrets.js";
import { ApprovalBroker } from "../../src/permissions/approvals.js";
import { AuditLog } from "../../src/permissions/audit.js";
import { createAuthorizer } from "../../src/permissions/authorizer.js";
import { createPermissionContext, deriveChildContext } from "../../src/permissions/context.js";
import { JobStore, type ScheduledJob } from "../../src/scheduler/jobs.js";
import { ScheduledRunner } from "../../src/scheduler/runner.js";
import { tick } from "../../src/scheduler/tick.js";
import { defaultGraceMs, nextDueAfter, type ScheduleSpec } from "../../src/scheduler/timing.js";
import type { AnyTool, ToolDefinition } from "../../src/tools/types.js";
import type { ScriptedReply } from "../fakes/script.js";
import { createHarness } from "../helpers/agent-harness.js";
import { echoTool } from "../helpers/echo-tool.js";

const silentLogger = createLogger(join(tmpdir(), "mercury-runner-silent"), "silent", new Redactor({}));

/** A real tool that asks the permission engine before it writes. */
const writeTool: ToolDefinition<{ path: string }> = {
  name: "write_somewhere",
  description: "writes a file",
  inputSchema: z.object({ path: z.string() }),
  mutating: true,
  async execute(input, context) {
    const decision = await context.authorize({ kind: "path", path: input.path, access: "write" });
    return decision.allowed ? { ok: true, output: "written" } : { ok: false, error: decision.reason };
  },
};
const scheduleTool: ToolDefinition<Record<string, never>> = {
  name: "schedule_task",
  description: "creates a job",
  inputSchema: z.object({}),
  mutating: true,
  async execute() {
    return { ok: true, output: "scheduled" };
  },
};

function setup(replies: ScriptedReply[], options: { attempts?: number; tools?: AnyTool[] } = {}) {
  let now = Date.parse("2026-06-01T08:00:00Z");
  const clock = { now: () => new Date(now) };
  const tools = options.tools ?? [echoTool, writeTool, scheduleTool];
  const harness = createHarness({
    replies: [replies],
    tools,
    clock,
    attempts: options.attempts ?? 1,
    prices: { "model-0": { input: 1, output: 1 } },
  });
  const { database } = harness;
  const store = new JobStore(database, clock);
  const ledger = new WorkLedger(database, clock);
  const broker = new ApprovalBroker({ database, clock, onEvent: () => undefined });
  const audit = new AuditLog(database, clock);
  const workspace = mkdtempSync(join(tmpdir(), "mercury-sched-"));
  const delivered: { target: string; taskId: string; message: string }[] = [];
  const toolNamesSeen: string[][] = [];
  const runner = new ScheduledRunner({
    database,
    clock,
    store,
    ledger,
    agent: harness.agent,
    tools,
    logger: silentLogger,
    retry: { attempts: 3, baseDelayMs: 60_000 },
    authorizerFor: (job, identity) => {
      const owner = createPermissionContext({
        cwd: job.workspace,
        home: workspace,
        mercuryHome: join(workspace, ".mercury"),
        mode: "refuse",
        sessionId: identity.sessionId,
        userKey: job.owner,
        taskId: identity.taskId,
      });
      return createAuthorizer({
        context: deriveChildContext(owner, { taskId: identity.taskId, mode: "refuse" }),
        broker,
        audit,
        clock,
      });
    },
    deliver: async (job, taskId, message) => {
      delivered.push({ target: job.delivery, taskId, message });
      return `sent to ${job.delivery}`;
    },
  });
  const add = (spec: ScheduleSpec, extra: Partial<ScheduledJob["budget"]> = {}, silent = false) =>
    store.create({
      name: "check",
      spec,
      task: "check the build",
      owner: "owner",
      workspace,
      delivery: "telegram:42",
      silent,
      graceMs: defaultGraceMs(spec, now),
      budget: { runTokens: null, runUsd: null, dayTokens: null, dayUsd: null, ...extra },
      permissions: null,
      nextDueMs: nextDueAfter(spec, now),
      createdBy: "test",
    });
  return {
    harness,
    store,
    ledger,
    runner,
    delivered,
    toolNamesSeen,
    workspace,
    setNow: (iso: string) => {
      now = Date.parse(iso);
      return now;
    },
    add,
  };
}

describe("scheduled runs", () => {
  it("a fired run is one ledger task, finished with outcome and usage, delivered once, never run twice", async () => {
    const s = setup([{ text: "Build is green.", usage: { inputTokens: 30, outputTokens: 5 } }]);
    const job = s.add({ kind: "interval", minutes: 10, anchorMs: Date.parse("2026-06-01T08:00:00Z") });
    const fired = tick(s.store, s.setNow("2026-06-01T08:10:00Z")).fire;
    expect(fired).toHaveLength(1);
    const [{ run }] = fired as [(typeof fired)[number]];
    // Two executors racing for the same claim: one runs it.
    await Promise.all([s.runner.start(job, run), s.runner.start(job, run)]);
    await s.runner.start(job, s.store.requireRun(run.id));
    const finished = s.store.requireRun(run.id);
    expect(finished.status).toBe("finished");
    expect(finished.outcome).toBe("responded");
    expect(finished.usage).toEqual({ inputTokens: 30, outputTokens: 5, costUsd: 35 / 1_000_000 });
    expect(s.ledger.require(finished.taskId ?? "").status).toBe("responded");
    expect(s.ledger.require(finished.taskId ?? "").channel).toBe("schedule");
    expect(s.delivered).toHaveLength(1);
    expect(s.delivered[0]?.message).toContain("Build is green.");
    expect(s.delivered[0]?.message).toContain("Usage: 35 tokens");
    expect(finished.delivery).toBe("sent to telegram:42");
    expect(s.harness.models[0]?.requests.length).toBe(1);
  });

  it("what needs approval is refused (nobody answers) and the refusal is reported with the result; job tools are absent", async () => {
    const s = setup([
      { toolCalls: [{ name: "write_somewhere", input: { path: "/etc/mercury-test-file" } }] },
      { text: "I could not write it." },
    ]);
    const job = s.add({ kind: "once", atMs: Date.parse("2026-06-01T09:00:00Z") });
    const [fired] = tick(s.store, s.setNow("2026-06-01T09:00:00Z")).fire;
    if (!fired) throw new Error("not fired");
    await s.runner.start(job, fired.run);
    const finished = s.store.requireRun(fired.run.id);
    expect(finished.refusals.length).toBe(1);
    expect(finished.refusals[0]).toContain("/etc/mercury-test-file");
    expect(s.delivered[0]?.message).toMatch(/Refused \(needed approval; nobody was there to answer\)/);
    const offered = (s.harness.models[0]?.requests[0]?.tools ?? []).map((tool) => tool.name);
    expect(offered).toContain("write_somewhere");
    expect(offered).not.toContain("schedule_task");
  });

  it("an exhausted per-run budget pauses the run and the job, with a message to the owner", async () => {
    const s = setup([
      { toolCalls: [{ name: "echo", input: { text: "a" } }], usage: { inputTokens: 80, outputTokens: 40 } },
      { text: "never reached" },
    ]);
    const job = s.add(
      { kind: "interval", minutes: 60, anchorMs: Date.parse("2026-06-01T08:00:00Z") },
      { runTokens: 100 },
    );
    const [fired] = tick(s.store, s.setNow("2026-06-01T09:00:00Z")).fire;
    if (!fired) throw new Error("not fired");
    await s.runner.start(job, fired.run);
    const finished = s.store.requireRun(fired.run.id);
    expect(finished.outcome).toBe("paused");
    expect(finished.reason).toMatch(
      /scheduled job budget of .* reached: this run used 120 of its 100 tokens/,
    );
    expect(s.ledger.require(finished.taskId ?? "").status).toBe("paused");
    expect(s.store.require(job.id).status).toBe("paused");
    expect(s.delivered[0]?.message).toContain("The job is paused");
    // The next due time is skipped and says so.
    const next = tick(s.store, s.setNow("2026-06-01T10:00:00Z"));
    expect(next.fire).toHaveLength(0);
    expect(next.recorded[0]?.timing).toBe("skipped");
  });

  it("a per-day budget counts every run of the job today", async () => {
    const s = setup([
      { text: "one", usage: { inputTokens: 120, outputTokens: 0 } },
      { text: "never reached" },
    ]);
    const job = s.add(
      { kind: "interval", minutes: 60, anchorMs: Date.parse("2026-06-01T08:00:00Z") },
      { dayTokens: 100 },
    );
    const first = tick(s.store, s.setNow("2026-06-01T09:00:00Z")).fire[0];
    if (!first) throw new Error("not fired");
    await s.runner.start(job, first.run);
    expect(s.store.requireRun(first.run.id).outcome).toBe("responded");
    const second = tick(s.store, s.setNow("2026-06-01T10:00:00Z")).fire[0];
    if (!second) throw new Error("not fired");
    await s.runner.start(job, second.run);
    expect(s.store.requireRun(second.run.id).outcome).toBe("paused");
    expect(s.store.requireRun(second.run.id).reason).toMatch(/120 of its 100 tokens for today/);
    expect(s.store.require(job.id).status).toBe("paused");
  });

  it("a run that never reached the model is retried with backoff, a bounded number of times", async () => {
    const down = { error: { status: 503, message: "provider down" } } as const;
    const s = setup([down, down, { text: "finally" }]);
    const job = s.add({ kind: "once", atMs: Date.parse("2026-06-01T09:00:00Z") });
    const [fired] = tick(s.store, s.setNow("2026-06-01T09:00:00Z")).fire;
    if (!fired) throw new Error("not fired");
    await s.runner.start(job, fired.run);
    let run = s.store.requireRun(fired.run.id);
    expect(run.status).toBe("retry-wait");
    expect(run.nextAttemptMs).toBe(Date.parse("2026-06-01T09:01:00Z"));
    expect(s.store.retriesDue(Date.parse("2026-06-01T09:00:59Z"))).toHaveLength(0);
    await s.runner.start(job, s.store.retriesDue(s.setNow("2026-06-01T09:01:00Z"))[0] as typeof run);
    run = s.store.requireRun(fired.run.id);
    expect(run.nextAttemptMs).toBe(Date.parse("2026-06-01T09:03:00Z"));
    await s.runner.start(job, s.store.retriesDue(s.setNow("2026-06-01T09:03:00Z"))[0] as typeof run);
    run = s.store.requireRun(fired.run.id);
    expect(run.status).toBe("finished");
    expect(run.attempts).toBe(3);
    expect(run.outcome).toBe("responded");
    expect(s.delivered).toHaveLength(1);
  });

  it("gives up after the last attempt and reports the provider's cause", async () => {
    const down = { error: { status: 503, message: "provider down" } } as const;
    const s = setup([down, down, down]);
    const job = s.add({ kind: "once", atMs: Date.parse("2026-06-01T09:00:00Z") });
    const [fired] = tick(s.store, s.setNow("2026-06-01T09:00:00Z")).fire;
    if (!fired) throw new Error("not fired");
    await s.runner.start(job, fired.run);
    await s.runner.start(job, s.store.retriesDue(s.setNow("2026-06-01T09:01:00Z"))[0] as never);
    await s.runner.start(job, s.store.retriesDue(s.setNow("2026-06-01T09:03:00Z"))[0] as never);
    const run = s.store.requireRun(fired.run.id);
    expect(run.status).toBe("finished");
    expect(run.outcome).toBe("failed");
    expect(s.delivered[0]?.message).toMatch(/provider down/);
  });

  it("a silent job delivers nothing when it succeeds", async () => {
    const s = setup([{ text: "all fine" }]);
    const job = s.add({ kind: "once", atMs: Date.parse("2026-06-01T09:00:00Z") }, {}, true);
    const [fired] = tick(s.store, s.setNow("2026-06-01T09:00:00Z")).fire;
    if (!fired) throw new Error("not fired");
    await s.runner.start(job, fired.run);
    expect(s.delivered).toHaveLength(0);
    expect(s.store.requireRun(fired.run.id).delivery).toBe("silent (succeeded)");
  });
});
