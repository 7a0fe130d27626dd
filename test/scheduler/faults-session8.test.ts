import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WorkLedger } from "../../src/agent/ledger.js";
import { procStat } from "../../src/agent/process-ledger.js";
import { createLogger } from "../../src/app/logger.js";
import { Redactor } from "../../src/config/secrets.js";
import { JobStore, type NewJob } from "../../src/scheduler/jobs.js";
import { ScheduledRunner } from "../../src/scheduler/runner.js";
import { tick } from "../../src/scheduler/tick.js";
import {
  defaultGraceMs,
  nextDueAfter,
  parseSchedule,
  type ScheduleSpec,
} from "../../src/scheduler/timing.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import type { ScriptedReply } from "../fakes/script.js";
import { createHarness } from "../helpers/agent-harness.js";
import { echoTool } from "../helpers/echo-tool.js";

const minute = 60_000;
const hour = 60 * minute;
const silentLogger = createLogger(join(tmpdir(), "mercury-faults8-silent"), "silent", new Redactor({}));

function newJob(spec: ScheduleSpec, nowMs: number, workspace: string): NewJob {
  return {
    name: "job",
    spec,
    task: "check the build",
    owner: "owner",
    workspace,
    delivery: "telegram:42",
    silent: false,
    graceMs: defaultGraceMs(spec, nowMs),
    budget: { runTokens: null, runUsd: null, dayTokens: null, dayUsd: null },
    permissions: null,
    nextDueMs: nextDueAfter(spec, nowMs),
    createdBy: "test",
  };
}

function timeline(startIso: string) {
  let now = Date.parse(startIso);
  const clock = { now: () => new Date(now) };
  return {
    clock,
    at: (iso: string) => {
      now = Date.parse(iso);
      return now;
    },
    now: () => now,
  };
}

describe("scheduler faults (injected clock)", () => {
  it("resume after a pause that spanned a due time no tick saw: the paused time is skipped, never replayed late", () => {
    const t = timeline("2026-06-01T08:00:00Z");
    const store = new JobStore(openMemoryDatabase(), t.clock);
    const job = store.create(
      newJob(parseSchedule("every 30 minutes", { timezone: "UTC", nowMs: t.now() }), t.now(), "/tmp/ws"),
    );
    store.setStatus(job.id, "paused", "paused by owner");
    // The daemon was down while paused: 08:30 passed unseen; the owner resumes at 08:40.
    t.at("2026-06-01T08:40:00Z");
    const resumed = store.setStatus(job.id, "active", null);
    expect(resumed.status).toBe("active");
    expect(resumed.nextDueMs).toBe(Date.parse("2026-06-01T09:00:00Z"));
    expect(tick(store, t.now()).fire).toHaveLength(0);
    const runs = store.runs(job.id);
    expect(runs.map((run) => run.timing)).toEqual(["skipped"]);
    expect(runs[0]?.reason).toBe("skipped: the job is paused (paused by owner)");
    expect(tick(store, t.at("2026-06-01T09:00:00Z")).fire[0]?.run.timing).toBe("on-time");
  });

  it("a one-shot job whose time passed while paused is done on resume (recorded skipped), never fired late", () => {
    const t = timeline("2026-06-01T08:00:00Z");
    const store = new JobStore(openMemoryDatabase(), t.clock);
    const job = store.create(
      newJob(parseSchedule("in 20 minutes", { timezone: "UTC", nowMs: t.now() }), t.now(), "/tmp/ws"),
    );
    store.setStatus(job.id, "paused", "paused by owner");
    t.at("2026-06-01T08:30:00Z");
    const resumed = store.setStatus(job.id, "active", null);
    expect(resumed.status).toBe("done");
    expect(resumed.statusReason).toBe("its only due time passed while it was paused");
    expect(tick(store, t.now()).fire).toHaveLength(0);
    expect(store.runs(job.id).map((run) => run.timing)).toEqual(["skipped"]);
  });

  it("the clock set back (NTP) after a run: the same due time never fires twice, and nothing fires early", () => {
    const t = timeline("2026-06-01T08:00:00Z");
    const store = new JobStore(openMemoryDatabase(), t.clock);
    const job = store.create(
      newJob(parseSchedule("0 9 * * *", { timezone: "UTC", nowMs: t.now() }), t.now(), "/tmp/ws"),
    );
    expect(tick(store, t.at("2026-06-01T09:00:30Z")).fire).toHaveLength(1);
    expect(tick(store, t.at("2026-06-01T08:59:00Z")).fire).toHaveLength(0);
    expect(tick(store, t.at("2026-06-01T09:00:00Z")).fire).toHaveLength(0);
    expect(tick(store, t.at("2026-06-02T08:59:59Z")).fire).toHaveLength(0);
    expect(tick(store, t.at("2026-06-02T09:00:00Z")).fire).toHaveLength(1);
    expect(store.runs(job.id)).toHaveLength(2);
  });

  it("the clock jumps forward days: one late run for a cron, and an interval stays on its anchor's grid", () => {
    const t = timeline("2026-06-01T08:00:00Z");
    const store = new JobStore(openMemoryDatabase(), t.clock);
    const daily = store.create(
      newJob(parseSchedule("0 9 * * *", { timezone: "Europe/Berlin", nowMs: t.now() }), t.now(), "/tmp/ws"),
    );
    const interval = store.create(
      newJob(parseSchedule("every 30 minutes", { timezone: "UTC", nowMs: t.now() }), t.now(), "/tmp/ws"),
    );
    // Berlin 09:00 is 07:00 UTC in June; jump five days to 07:10 UTC.
    const result = tick(store, t.at("2026-06-06T07:10:00Z"));
    const byJob = new Map(result.fire.map((entry) => [entry.job.id, entry.run]));
    expect(byJob.get(daily.id)?.timing).toBe("late");
    expect(byJob.get(daily.id)?.collapsed).toBe(5);
    expect(byJob.get(daily.id)?.lateMs).toBe(10 * minute);
    expect(byJob.get(interval.id)?.timing).toBe("late");
    expect(byJob.get(interval.id)?.dueMs).toBe(Date.parse("2026-06-06T07:00:00Z"));
    expect(store.require(interval.id).nextDueMs).toBe(Date.parse("2026-06-06T07:30:00Z"));
    expect(tick(store, t.now()).fire).toHaveLength(0);
  });
});

function runnerSetup(replies: ScriptedReply[]) {
  const t = timeline("2026-06-01T08:00:00Z");
  const harness = createHarness({ replies: [replies], tools: [echoTool], clock: t.clock, attempts: 1 });
  const { database } = harness;
  const store = new JobStore(database, t.clock);
  const ledger = new WorkLedger(database, t.clock);
  const home = mkdtempSync(join(tmpdir(), "mercury-faults8-"));
  const delivered: string[] = [];
  const runner = new ScheduledRunner({
    database,
    clock: t.clock,
    store,
    ledger,
    agent: harness.agent,
    tools: [echoTool],
    logger: silentLogger,
    retry: { attempts: 3, baseDelayMs: minute },
    home,
    authorizerFor: () => async () => ({ allowed: false, rule: "test", reason: "nobody to ask" }),
    deliver: async (_job, _taskId, message) => {
      delivered.push(message);
      return "sent to telegram:42";
    },
  });
  return { t, harness, store, ledger, runner, home, delivered };
}

describe("scheduled runs under faults", () => {
  const down = { error: { status: 503, message: "provider down" } } as const;

  it("a job removed while its run waits for a retry is not retried: the run is recorded skipped with why", async () => {
    const s = runnerSetup([down, { text: "should never run" }]);
    const job = s.store.create(
      newJob({ kind: "once", atMs: Date.parse("2026-06-01T09:00:00Z") }, s.t.now(), s.home),
    );
    const [fired] = tick(s.store, s.t.at("2026-06-01T09:00:00Z")).fire;
    if (!fired) throw new Error("not fired");
    await s.runner.start(job, fired.run);
    expect(s.store.requireRun(fired.run.id).status).toBe("retry-wait");
    s.store.setStatus(job.id, "removed", null);
    const [retry] = s.store.retriesDue(s.t.at("2026-06-01T09:01:00Z"));
    if (!retry) throw new Error("no retry due");
    await s.runner.start(job, retry);
    const run = s.store.requireRun(fired.run.id);
    expect(run.status).toBe("finished");
    expect(run.outcome).toBe("skipped");
    expect(run.reason).toMatch(
      /^not run: the job was removed before this run was retried; attempt 1 never reached a model \(.*provider down/,
    );
    expect(s.harness.models[0]?.requests.length).toBe(1);
    expect(s.store.retriesDue(s.t.at("2026-06-01T10:00:00Z"))).toHaveLength(0);
  });

  it("a job paused while its run waits for a retry is not retried; a run-now of a paused job still runs", async () => {
    const s = runnerSetup([down, { text: "manual answer" }]);
    const job = s.store.create(
      newJob({ kind: "interval", minutes: 60, anchorMs: s.t.now() }, s.t.now(), s.home),
    );
    const [fired] = tick(s.store, s.t.at("2026-06-01T09:00:00Z")).fire;
    if (!fired) throw new Error("not fired");
    await s.runner.start(job, fired.run);
    s.store.setStatus(job.id, "paused", "paused by the owner");
    await s.runner.start(job, s.store.retriesDue(s.t.at("2026-06-01T09:01:00Z"))[0] as never);
    expect(s.store.requireRun(fired.run.id).reason).toMatch(
      /^not run: the job is paused \(paused by the owner\) before this run was retried/,
    );
    const manual = s.store.claimManual(s.store.require(job.id), s.t.now());
    await s.runner.start(job, manual);
    expect(s.store.requireRun(manual.id).outcome).toBe("responded");
    expect(s.delivered).toHaveLength(1);
  });

  it("a run another live process is executing (run-now without the daemon) is not resumed a second time by a daemon's recovery", async () => {
    const s = runnerSetup([{ text: "second execution" }]);
    const job = s.store.create(
      newJob({ kind: "once", atMs: Date.parse("2026-06-01T09:00:00Z") }, s.t.now(), s.home),
    );
    const [fired] = tick(s.store, s.t.at("2026-06-01T09:00:00Z")).fire;
    if (!fired) throw new Error("not fired");
    // Another process started it: run running, ledger task running, its owner file names a live pid.
    const taskId = `${job.id}:${fired.run.id}:1`;
    expect(s.store.startRun(fired.run.id, taskId)).toBe(true);
    s.ledger.create({
      id: taskId,
      sessionId: taskId,
      userKey: "owner",
      channel: "schedule",
      input: "x",
      cwd: s.home,
    });
    s.ledger.markRunning(taskId, "first");
    const otherPid = process.ppid;
    mkdirSync(join(s.home, "running"), { recursive: true });
    writeFileSync(
      join(s.home, "running", `${taskId.replace(/[^\w.-]/g, "_")}.json`),
      JSON.stringify({ pid: otherPid, start: procStat(otherPid)?.startTime ?? -1 }),
    );
    await s.runner.start(job, s.store.requireRun(fired.run.id));
    expect(s.harness.models[0]?.requests.length ?? 0).toBe(0);
    expect(s.store.requireRun(fired.run.id).status).toBe("running");
    expect(s.ledger.require(taskId).resumes).toBe(0);
    expect(s.delivered).toHaveLength(0);
  });

  it("a run whose model fails on every attempt is recorded failed with the provider's cause; the job stays active", async () => {
    const s = runnerSetup([down, down, down]);
    const job = s.store.create(
      newJob({ kind: "interval", minutes: 60, anchorMs: s.t.now() }, s.t.now(), s.home),
    );
    const [fired] = tick(s.store, s.t.at("2026-06-01T09:00:00Z")).fire;
    if (!fired) throw new Error("not fired");
    await s.runner.start(job, fired.run);
    await s.runner.start(job, s.store.retriesDue(s.t.at("2026-06-01T09:01:00Z"))[0] as never);
    await s.runner.start(job, s.store.retriesDue(s.t.at("2026-06-01T09:03:00Z"))[0] as never);
    const run = s.store.requireRun(fired.run.id);
    expect(run.outcome).toBe("failed");
    expect(run.attempts).toBe(3);
    expect(run.reason).toMatch(/provider down/);
    expect(s.store.require(job.id).status).toBe("active");
    expect(s.store.require(job.id).nextDueMs).toBe(Date.parse("2026-06-01T10:00:00Z"));
    expect(s.delivered).toHaveLength(1);
  });
});
