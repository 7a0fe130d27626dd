import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyEvidence, TaskEvidenceStore } from "../../src/agent/evidence.js";
import { LedgerError, WorkLedger } from "../../src/agent/ledger.js";
import { procStat } from "../../src/agent/process-ledger.js";
import { liveOwner } from "../../src/agent/task-owner.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import { TranscriptStore } from "../../src/storage/transcripts.js";

/** A wall clock the test sets, as an administrator (or NTP) would. */
function settableClock() {
  let now = Date.parse("2026-06-01T12:00:00Z");
  return {
    clock: { now: () => new Date(now) },
    setBack: (ms: number) => {
      now -= ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const entry = { sessionId: "s1", userKey: "owner", channel: "cli", input: "work", cwd: "/tmp" };

describe("the ledger's 'latest' is the order of writes, not the wall clock", () => {
  it("after the clock is set back, a newer task is still the session's latest", () => {
    const time = settableClock();
    const ledger = new WorkLedger(openMemoryDatabase(), time.clock);
    const older = ledger.create(entry);
    ledger.markRunning(older.id);
    ledger.finish(older.id, { outcome: "completed", text: "done" });
    time.setBack(3_600_000);
    const newer = ledger.create(entry);
    ledger.markRunning(newer.id);
    ledger.finish(newer.id, { outcome: "failed", text: "", reason: "`npm test` exited 1" });
    // "continue" resumes the failed newer task, not "nothing" because the older one sorted first.
    expect(ledger.resumableInSession("s1")?.id).toBe(newer.id);
    expect(ledger.continuable("owner", "s1")?.id).toBe(newer.id);
    const third = ledger.create(entry);
    expect(ledger.unfinishedBefore("s1", third.id)?.id).toBe(newer.id);
  });

  it("a task continued after the clock is set back is the latest paused one", () => {
    const time = settableClock();
    const ledger = new WorkLedger(openMemoryDatabase(), time.clock);
    const first = ledger.create({ ...entry, sessionId: "a" });
    ledger.markRunning(first.id);
    ledger.pause(first.id, "needs approval");
    time.advance(60_000);
    const second = ledger.create({ ...entry, sessionId: "b" });
    ledger.markRunning(second.id);
    ledger.pause(second.id, "needs approval");
    time.setBack(3_600_000);
    ledger.markRunning(first.id, "continuation");
    ledger.pause(first.id, "needs approval again");
    expect(ledger.latestPaused("owner")?.id).toBe(first.id);
  });

  it("sessions and undo's newest task follow the order of writes too", () => {
    const time = settableClock();
    const database = openMemoryDatabase();
    const transcripts = new TranscriptStore(database, time.clock.now);
    const older = transcripts.createSession("owner", "cli");
    transcripts.append(older, null, [{ role: "user", content: "first" }]);
    time.setBack(3_600_000);
    const newer = transcripts.createSession("owner", "cli");
    transcripts.append(newer, null, [{ role: "user", content: "second" }]);
    expect(transcripts.latestSession("owner", "cli")).toBe(newer);
    expect(transcripts.recentSessions("owner", "cli", 10).map((session) => session.id)).toEqual([
      newer,
      older,
    ]);

    const evidenceTime = settableClock();
    const evidence = new TaskEvidenceStore(database, evidenceTime.clock);
    const ledger = new WorkLedger(database, time.clock);
    for (const id of ["t-old", "t-new"]) ledger.create({ ...entry, id });
    evidence.save("t-old", emptyEvidence("/tmp"));
    evidenceTime.setBack(3_600_000);
    evidence.save("t-new", emptyEvidence("/tmp"));
    expect(evidence.taskIds()).toEqual(["t-new", "t-old"]);
  });
});

describe("the owner is recorded with the ledger's claim", () => {
  it("a claim names this process", () => {
    const home = mkdtempSync(join(tmpdir(), "mercury-claim-"));
    const ledger = new WorkLedger(openMemoryDatabase());
    const task = ledger.create(entry);
    ledger.claim(task.id, "first", home);
    expect(liveOwner(home, task.id)).toEqual({ pid: process.pid });
  });

  it("a task another live process owns is refused, and nothing in the ledger moves", () => {
    const home = mkdtempSync(join(tmpdir(), "mercury-claim-"));
    const ledger = new WorkLedger(openMemoryDatabase());
    const task = ledger.create(entry);
    ledger.markRunning(task.id);
    // The parent of this test process is alive and is not us: its claim, as claimTask writes it.
    const parent = procStat(process.ppid);
    mkdirSync(join(home, "running"));
    writeFileSync(
      join(home, "running", `${task.id}.json`),
      JSON.stringify({ pid: process.ppid, start: parent?.startTime ?? -1 }),
    );
    expect(() => ledger.claim(task.id, "resume", home)).toThrow(LedgerError);
    expect(() => ledger.claim(task.id, "resume", home)).toThrow(
      `task ${task.id} is still running in another Mercury process (pid ${process.ppid})`,
    );
    expect(ledger.require(task.id)).toMatchObject({ status: "running", resumes: 0 });
  });

  it("a claim left by a dead process is taken over", () => {
    const home = mkdtempSync(join(tmpdir(), "mercury-claim-"));
    const ledger = new WorkLedger(openMemoryDatabase());
    const task = ledger.create(entry);
    ledger.markRunning(task.id);
    mkdirSync(join(home, "running"));
    writeFileSync(join(home, "running", `${task.id}.json`), JSON.stringify({ pid: 2 ** 22 + 1, start: 1 }));
    expect(ledger.claim(task.id, "resume", home)).toMatchObject({ status: "running", resumes: 1 });
    expect(liveOwner(home, task.id)).toEqual({ pid: process.pid });
  });
});
