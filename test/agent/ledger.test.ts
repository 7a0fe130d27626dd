import { describe, expect, it } from "vitest";
import { LedgerError, statusForOutcome, WorkLedger } from "../../src/agent/ledger.js";
import { DeliveryLedger, maxDeliveryAttempts } from "../../src/agent/ledger-deliveries.js";
import { openMemoryDatabase } from "../../src/storage/database.js";

function setup() {
  const database = openMemoryDatabase();
  let now = Date.parse("2026-01-01T00:00:00Z");
  const clock = {
    now: () => {
      now += 1000;
      return new Date(now);
    },
  };
  return {
    database,
    ledger: new WorkLedger(database, clock),
    deliveries: new DeliveryLedger(database, clock),
  };
}

const entry = { sessionId: "s1", userKey: "owner", channel: "cli", input: "build it", cwd: "/tmp" };

describe("WorkLedger", () => {
  it("moves queued → running → responded and keeps the final answer (a plain answer is never 'completed')", () => {
    const { ledger } = setup();
    const task = ledger.create(entry);
    expect(task.status).toBe("queued");
    expect(ledger.markRunning(task.id).status).toBe("running");
    const done = ledger.finish(task.id, { outcome: "responded", text: "done it" });
    expect(done).toMatchObject({ status: "responded", outcome: "responded", finalAnswer: "done it" });
  });

  it("maps each agent outcome onto a ledger status", () => {
    expect(statusForOutcome("completed")).toBe("completed");
    expect(statusForOutcome("responded")).toBe("responded");
    expect(statusForOutcome("paused")).toBe("paused");
    expect(statusForOutcome("failed")).toBe("failed");
    expect(statusForOutcome("cancelled")).toBe("cancelled");
  });

  it("records the blocker of a pause, and 'continue' counts a continuation", () => {
    const { ledger } = setup();
    const task = ledger.create(entry);
    ledger.markRunning(task.id);
    ledger.finish(task.id, { outcome: "paused", text: "", reason: "step budget exhausted" });
    expect(ledger.latestPaused("owner")).toMatchObject({ id: task.id, reason: "step budget exhausted" });
    expect(ledger.latestPaused("telegram:5")).toBeNull();
    const resumed = ledger.markRunning(task.id, "continuation");
    expect(resumed).toMatchObject({ status: "running", continuations: 1, resumes: 0, reason: null });
  });

  it("'continue' resumes the session's failed task (its evidence stays with it), never a cancelled one", () => {
    const { ledger } = setup();
    const failed = ledger.create(entry);
    ledger.markRunning(failed.id);
    ledger.finish(failed.id, { outcome: "failed", text: "", reason: "verification failed" });
    expect(ledger.continuable("owner", "s1")?.id).toBe(failed.id);
    expect(ledger.resumableInSession("s1")?.id).toBe(failed.id);
    // Another person's "continue" does not take it, and only a continuation reopens a failed task.
    expect(ledger.continuable("telegram:5", "s1")).toBeNull();
    expect(() => ledger.markRunning(failed.id, "resume")).toThrow(LedgerError);
    expect(ledger.markRunning(failed.id, "continuation")).toMatchObject({
      status: "running",
      continuations: 1,
    });

    const stopped = ledger.create({ ...entry, input: "stopped" });
    ledger.markRunning(stopped.id);
    ledger.cancel(stopped.id, "stopped by the user");
    expect(ledger.resumableInSession("s1")).toBeNull();
    expect(() => ledger.markRunning(stopped.id, "continuation")).toThrow(LedgerError);
  });

  it("lists running and queued tasks as interrupted, in creation order, and counts resumes", () => {
    const { ledger } = setup();
    const first = ledger.create(entry);
    ledger.markRunning(first.id);
    const second = ledger.create({ ...entry, input: "second" });
    const finished = ledger.create({ ...entry, input: "third" });
    ledger.markRunning(finished.id);
    ledger.finish(finished.id, { outcome: "completed", text: "ok" });
    expect(ledger.interrupted().map((task) => task.id)).toEqual([first.id, second.id]);
    expect(ledger.markRunning(first.id, "resume").resumes).toBe(1);
  });

  it("a deliberate stop is final: a late report cannot turn it into completed, and it is never resumed", () => {
    const { ledger } = setup();
    const task = ledger.create(entry);
    ledger.markRunning(task.id);
    expect(ledger.cancel(task.id, "stopped by owner")).toBe(true);
    const after = ledger.finish(task.id, { outcome: "completed", text: "late text" });
    expect(after).toMatchObject({
      status: "cancelled",
      outcome: "cancelled",
      reason: "stopped by owner",
      finalAnswer: "late text",
    });
    expect(ledger.interrupted()).toEqual([]);
    expect(() => ledger.markRunning(task.id, "resume")).toThrow(/cancelled and cannot run again/);
    expect(ledger.cancel(task.id, "again")).toBe(false);
  });

  it("cancelActive cancels queued and running work but leaves paused work for 'continue'", () => {
    const { ledger } = setup();
    const running = ledger.create(entry);
    ledger.markRunning(running.id);
    const queued = ledger.create(entry);
    const paused = ledger.create(entry);
    ledger.markRunning(paused.id);
    ledger.finish(paused.id, { outcome: "paused", text: "", reason: "blocked" });
    expect(new Set(ledger.cancelActive("SIGTERM"))).toEqual(new Set([running.id, queued.id]));
    expect(ledger.counts()).toMatchObject({ cancelled: 2, paused: 1, running: 0, queued: 0 });
  });

  it("refuses an unknown task with its id", () => {
    const { ledger } = setup();
    expect(() => ledger.markRunning("nope")).toThrow(LedgerError);
    expect(() => ledger.require("nope")).toThrow(/no task nope/);
  });
});

describe("DeliveryLedger", () => {
  it("records once per task and target and is sent once", () => {
    const { ledger, deliveries } = setup();
    const task = ledger.create(entry);
    const first = deliveries.record(task.id, "terminal");
    const again = deliveries.record(task.id, "terminal");
    expect(again.id).toBe(first.id);
    deliveries.beginAttempt(first.id);
    expect(deliveries.markSent(first.id)).toBe(true);
    expect(deliveries.markSent(first.id)).toBe(false);
    expect(deliveries.pending()).toEqual([]);
    expect(deliveries.record(task.id, "terminal")).toMatchObject({ status: "sent", attempts: 1 });
  });

  it("a crash between the attempt and the send leaves it pending with the attempt counted", () => {
    const { ledger, deliveries } = setup();
    const task = ledger.create(entry);
    const record = deliveries.record(task.id, "terminal");
    deliveries.beginAttempt(record.id);
    expect(deliveries.pending("terminal")).toEqual([expect.objectContaining({ id: record.id, attempts: 1 })]);
  });

  it("gives up after the maximum attempts and says why", () => {
    const { ledger, deliveries } = setup();
    const task = ledger.create(entry);
    const record = deliveries.record(task.id, "terminal");
    let last = record;
    for (let attempt = 0; attempt < maxDeliveryAttempts; attempt += 1) {
      deliveries.beginAttempt(record.id);
      last = deliveries.markAttemptFailed(record.id, "terminal gone");
    }
    expect(last).toMatchObject({
      status: "failed",
      lastError: "terminal gone",
      attempts: maxDeliveryAttempts,
    });
    expect(deliveries.pending()).toEqual([]);
  });
});
