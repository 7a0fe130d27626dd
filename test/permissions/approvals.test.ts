import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { ApprovalBroker, ApprovalError } from "../../src/permissions/approvals.js";
import { AuditLog } from "../../src/permissions/audit.js";
import { GrantError } from "../../src/permissions/grants.js";
import { openDatabase, openMemoryDatabase, type SqliteDatabase } from "../../src/storage/database.js";

const base = {
  taskId: "task-1",
  sessionId: "session-1",
  userKey: "telegram:42",
  kind: "command" as const,
  summary: "run: npm install left-pad",
  subject: "npm install left-pad",
  rule: "command.not-readonly",
  reason: "npm is not on the read-only allowlist",
};

class ManualClock {
  constructor(public current: Date) {}
  now(): Date {
    return this.current;
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mercury-approvals-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("approval broker", () => {
  it("persists the request, tells the right user, and resolves with the answer", async () => {
    const database = openMemoryDatabase();
    const events: AgentEvent[] = [];
    const broker = new ApprovalBroker({ database, onEvent: (event) => events.push(event) });
    const pending = broker.request(base);
    const request = events.find((event) => event.type === "approval-request");
    expect(request).toMatchObject({
      type: "approval-request",
      userKey: "telegram:42",
      rule: "command.not-readonly",
    });
    if (request?.type !== "approval-request") throw new Error("no approval-request event");
    expect(broker.get(request.approvalId)?.status).toBe("pending");
    broker.answer(request.approvalId, "once", "telegram:42");
    await expect(pending).resolves.toMatchObject({
      status: "approved",
      scope: "once",
      answeredBy: "telegram:42",
    });
    expect(events.some((event) => event.type === "approval-resolved")).toBe(true);
    database.close();
  });

  it("refuses an answer from someone other than the task's user or the owner", async () => {
    const database = openMemoryDatabase();
    const events: AgentEvent[] = [];
    const broker = new ApprovalBroker({ database, onEvent: (event) => events.push(event) });
    const pending = broker.request(base);
    const id = (events[0] as Extract<AgentEvent, { type: "approval-request" }>).approvalId;
    expect(() => broker.answer(id, "once", "telegram:666")).toThrow(ApprovalError);
    expect(() => broker.answer(id, "once", "telegram:666")).toThrow(/cannot answer/);
    broker.answer(id, "deny", "owner");
    await expect(pending).resolves.toMatchObject({ status: "denied", answeredBy: "owner" });
    expect(() => broker.answer(id, "once", "owner")).toThrow(/already denied/);
    database.close();
  });

  it("reports expiry explicitly, with the waiting time, instead of a silent no", async () => {
    const database = openMemoryDatabase();
    const broker = new ApprovalBroker({ database });
    const outcome = await broker.request({ ...base, timeoutMs: 40 });
    expect(outcome.status).toBe("expired");
    if (outcome.status !== "expired") throw new Error("not expired");
    expect(outcome.message).toMatch(/expired after 0 seconds; the user did not answer/);
    expect(broker.get(outcome.approvalId)?.status).toBe("expired");
    expect(() => broker.answer(outcome.approvalId, "once", "owner")).toThrow(/already expired/);
    database.close();
  });

  it("says minutes in the expiry message for a realistic timeout", async () => {
    const database = openMemoryDatabase();
    const clock = new ManualClock(new Date("2026-01-01T10:00:00Z"));
    const broker = new ApprovalBroker({ database, clock });
    const pending = broker.request({ ...base, timeoutMs: 15 * 60_000 });
    clock.advance(16 * 60_000);
    // The timer was armed for 15 minutes of real time; a restart sweep finds it overdue by the clock.
    expect(broker.pendingForRestart()).toHaveLength(0);
    const outcome = await pending;
    expect(outcome).toMatchObject({ status: "expired", waitedMinutes: 15 });
    if (outcome.status === "expired")
      expect(outcome.message).toMatch(/expired after 15 minutes; the user did not answer/);
    broker.close();
    database.close();
  });

  it("survives a restart: the pending row is re-announced and a resumed task gets the answer", async () => {
    const path = join(dir, "mercury.db");
    const first = openDatabase(path);
    const broker1 = new ApprovalBroker({ database: first });
    const abandoned = broker1.request(base);
    broker1.close();
    first.close();
    void abandoned; // The first process "crashed": nobody will settle this promise.

    const second = openDatabase(path);
    const events: AgentEvent[] = [];
    const broker2 = new ApprovalBroker({ database: second, onEvent: (event) => events.push(event) });
    const pending = broker2.pendingForRestart();
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      user_key: "telegram:42",
      subject: "npm install left-pad",
      status: "pending",
    });
    expect(events).toMatchObject([
      { type: "approval-request", approvalId: pending[0]?.id, userKey: "telegram:42" },
    ]);
    broker2.answer(pending[0]?.id as string, "once", "telegram:42");
    const resumed = await broker2.request(base);
    expect(resumed).toMatchObject({ status: "approved", approvalId: pending[0]?.id });
    // "once" is used up: the same request asks again.
    const again = broker2.request({ ...base, timeoutMs: 20 });
    await expect(again).resolves.toMatchObject({ status: "expired" });
    broker2.close();
    second.close();
  });

  it("survives a real process restart (child process killed while waiting)", async () => {
    const path = join(dir, "mercury.db");
    openDatabase(path).close();
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(import.meta.dirname, "fixtures", "request-approval.ts"), path],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const approvalId = await new Promise<string>((resolve, reject) => {
      let buffer = "";
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        const line = buffer.split("\n").find((entry) => entry.includes("approvalId"));
        if (line) resolve((JSON.parse(line) as { approvalId: string }).approvalId);
      });
      child.on("exit", (code) => reject(new Error(`child exited ${code} before asking: ${stderr}`)));
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.kill("SIGKILL");
    await exited;

    const database = openDatabase(path);
    const broker = new ApprovalBroker({ database });
    const pending = broker.pendingForRestart();
    expect(pending.map((row) => row.id)).toEqual([approvalId]);
    expect(pending[0]).toMatchObject({ task_id: "task-restart", user_key: "telegram:42" });
    const waiting = broker.request({ ...base, taskId: "task-restart", sessionId: "session-restart" });
    broker.answer(approvalId, "session", "owner");
    await expect(waiting).resolves.toMatchObject({ status: "approved", scope: "session", approvalId });
    broker.close();
    database.close();
  }, 30_000);

  it("stores 'always' as the exact command, and a prefix only when it is narrow", async () => {
    const database = openMemoryDatabase();
    const events: AgentEvent[] = [];
    const broker = new ApprovalBroker({ database, onEvent: (event) => events.push(event) });
    const ask = (subject: string) => {
      const promise = broker.request({ ...base, subject, summary: `run: ${subject}` });
      const last = events.filter((event) => event.type === "approval-request").at(-1);
      if (last?.type !== "approval-request") throw new Error("no request");
      return { promise, id: last.approvalId };
    };
    const first = ask("npm run build --watch");
    expect(() => broker.answer(first.id, "always", "owner", { prefix: "npm" })).toThrow(GrantError);
    expect(() => broker.answer(first.id, "always", "owner", { prefix: "npm *" })).toThrow(
      /shell syntax or wildcards/,
    );
    expect(() => broker.answer(first.id, "always", "owner", { prefix: "npm test" })).toThrow(
      /does not start/,
    );
    const result = broker.answer(first.id, "always", "owner", { prefix: "npm run build" });
    expect(result.grant).toMatchObject({ match: "prefix", subject: "npm run build", scope: "always" });
    await first.promise;
    const find = (subject: string, singleCommand = true) =>
      broker.grants.find({
        userKey: base.userKey,
        sessionId: "other",
        kind: "command",
        subject,
        singleCommand,
      });
    expect(find("npm run build")).not.toBeNull();
    expect(find("npm run build --prod")).not.toBeNull();
    expect(find("npm run builder")).toBeNull();
    expect(find("npm run build && rm -rf src", false)).toBeNull();
    expect(find("npm run build $(id)")).toBeNull();
    expect(
      broker.grants.find({
        userKey: "telegram:7",
        sessionId: null,
        kind: "command",
        subject: "npm run build",
        singleCommand: true,
      }),
    ).toBeNull();
    database.close();
  });

  it("keeps 'always' grants and allow-all windows across a reopen of the database file", async () => {
    const path = join(dir, "mercury.db");
    const first = openDatabase(path);
    const events: AgentEvent[] = [];
    const broker1 = new ApprovalBroker({ database: first, onEvent: (event) => events.push(event) });
    const pending = broker1.request(base);
    const request = events[0];
    if (request?.type !== "approval-request") throw new Error("no request");
    broker1.answer(request.approvalId, "always", "telegram:42");
    await pending;
    broker1.setAllowAll("session-9", 10);
    first.close();

    const second = openDatabase(path);
    const broker2 = new ApprovalBroker({ database: second });
    const grant = broker2.grants.find({
      userKey: "telegram:42",
      sessionId: null,
      kind: "command",
      subject: base.subject,
      singleCommand: true,
    });
    expect(grant).toMatchObject({ scope: "always", match: "exact" });
    expect(broker2.allowAllStatus("session-9").active).toBe(true);
    expect(broker2.grants.revoke(grant?.id as number)).toBe(true);
    expect(
      broker2.grants.find({
        userKey: "telegram:42",
        sessionId: null,
        kind: "command",
        subject: base.subject,
        singleCommand: true,
      }),
    ).toBeNull();
    second.close();
  });

  it("allow-all is per session, expires and can be revoked", () => {
    const database = openMemoryDatabase();
    const clock = new ManualClock(new Date("2026-01-01T10:00:00Z"));
    const broker = new ApprovalBroker({ database, clock });
    expect(broker.allowAllStatus("s1")).toEqual({ active: false, until: null });
    const { until } = broker.setAllowAll("s1");
    expect(until.toISOString()).toBe("2026-01-01T10:30:00.000Z");
    expect(broker.allowAllStatus("s1").active).toBe(true);
    expect(broker.allowAllStatus("s2").active).toBe(false);
    clock.advance(31 * 60_000);
    expect(broker.allowAllStatus("s1")).toEqual({ active: false, until: null });
    broker.setAllowAll("s1", 5);
    expect(broker.revokeAllowAll("s1")).toBe(true);
    expect(broker.allowAllStatus("s1").active).toBe(false);
    expect(broker.revokeAllowAll("s1")).toBe(false);
    expect(() => broker.setAllowAll("s1", 0)).toThrow(/between 1 minute and 24 hours/);
    const audit = new AuditLog(database, clock);
    expect(audit.list(10).map((entry) => entry.rule)).toEqual([
      "allow-all.revoke",
      "allow-all.set",
      "allow-all.set",
    ]);
    database.close();
  });

  it("rejects the wait when the task is aborted", async () => {
    const database: SqliteDatabase = openMemoryDatabase();
    const broker = new ApprovalBroker({ database });
    const controller = new AbortController();
    const pending = broker.request({ ...base, signal: controller.signal });
    controller.abort(new Error("task stopped"));
    await expect(pending).rejects.toThrow("task stopped");
    broker.close();
    database.close();
  });
});
