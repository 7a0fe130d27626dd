import { randomUUID } from "node:crypto";
import { z } from "zod";
import { type Clock, systemClock } from "../agent/clock.js";
import type { AgentEvent } from "../agent/events.js";
import type { ApprovalDecision } from "../channels/types.js";
import type { SqliteDatabase } from "../storage/database.js";
import { AllowAllStore, defaultAllowAllMinutes } from "./allow-all.js";
import { type Grant, GrantStore } from "./grants.js";
import { redactSecrets } from "./redact.js";

export type ApprovalKind = "command" | "path" | "network" | "mcp";
export type ApprovalScope = "once" | "session" | "always";

export interface ApprovalRequestArgs {
  taskId: string;
  sessionId: string;
  /** The person whose task needs the approval; only they (or an owner) may answer. */
  userKey: string;
  kind: ApprovalKind;
  /** What the person is shown, e.g. "run: npm install left-pad". Secrets are redacted. */
  summary: string;
  /** The normalized command or "read:/real/path" the answer applies to. */
  subject: string;
  rule: string;
  reason: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export type ApprovalOutcome =
  | { status: "approved"; approvalId: string; scope: ApprovalScope; answeredBy: string }
  | { status: "denied"; approvalId: string; answeredBy: string }
  /** Nobody answered in time. `message` is what the model and the user are told, verbatim. */
  | { status: "expired"; approvalId: string; waitedMinutes: number; message: string };

export class ApprovalError extends Error {
  override name = "ApprovalError";
}

const approvalRow = z.object({
  id: z.string(),
  task_id: z.string(),
  session_id: z.string(),
  user_key: z.string(),
  kind: z.enum(["command", "path", "network", "mcp"]),
  summary: z.string(),
  subject: z.string(),
  rule: z.string(),
  reason: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  status: z.enum(["pending", "approved", "denied", "expired"]),
  answered_by: z.string().nullable(),
  answered_at: z.string().nullable(),
  scope: z.enum(["once", "session", "always"]).nullable(),
  consumed_at: z.string().nullable(),
});

export type ApprovalRecord = z.infer<typeof approvalRow>;

export interface ApprovalBrokerDeps {
  database: SqliteDatabase;
  clock?: Clock;
  /** Where approval events go (the agent's EventBus.emit); channels show them to the right person. */
  onEvent?: (event: AgentEvent) => void;
  /** How long a person has to answer (default 15 minutes). */
  defaultTimeoutMs?: number;
  /** User keys that may answer anyone's approval (default: "owner"). */
  owners?: readonly string[];
}

interface Waiter {
  /** False for the expiry-only watcher armed after a restart: no task is waiting on it yet. */
  real: boolean;
  resolve(outcome: ApprovalOutcome): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout | null;
  cleanup(): void;
}

export const defaultApprovalTimeoutMs = 15 * 60_000;

/**
 * The `settings` key under which `mcp/definitions.ts` leaves what changed in an MCP tool since it was
 * approved; a question about that tool carries it, so the person sees the change before answering.
 */
export function mcpChangeKey(subject: string): string {
  return `mcp.changed:${subject}`;
}
export { defaultAllowAllMinutes } from "./allow-all.js";

/**
 * Approvals persisted in SQLite: a request survives a restart (it is re-announced by
 * pendingForRestart and a resumed task picks up the answer), goes to the person whose task needs
 * it, and expires visibly. Also holds the standing grants and per-session allow-all windows.
 */
export class ApprovalBroker {
  private readonly clock: Clock;
  private readonly waiters = new Map<string, Waiter[]>();
  readonly grants: GrantStore;
  private readonly allowAll: AllowAllStore;

  constructor(private readonly deps: ApprovalBrokerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.grants = new GrantStore(deps.database, this.clock);
    this.allowAll = new AllowAllStore(deps.database, this.clock);
  }

  request(args: ApprovalRequestArgs): Promise<ApprovalOutcome> {
    if (args.signal?.aborted) return Promise.reject(args.signal.reason);
    const now = this.clock.now();
    const existing = this.findReusable(args);
    if (existing?.status === "approved" && existing.scope) {
      this.deps.database
        .prepare("UPDATE approvals SET consumed_at = ? WHERE id = ?")
        .run(now.toISOString(), existing.id);
      return Promise.resolve({
        status: "approved",
        approvalId: existing.id,
        scope: existing.scope,
        answeredBy: existing.answered_by ?? existing.user_key,
      });
    }
    let record: ApprovalRecord;
    if (existing?.status === "pending") {
      record = existing;
    } else {
      const timeoutMs = args.timeoutMs ?? this.deps.defaultTimeoutMs ?? defaultApprovalTimeoutMs;
      record = {
        id: randomUUID(),
        task_id: args.taskId,
        session_id: args.sessionId,
        user_key: args.userKey,
        kind: args.kind,
        summary: redactSecrets(this.withMcpChange(args)),
        subject: args.subject,
        rule: args.rule,
        reason: redactSecrets(args.reason),
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + timeoutMs).toISOString(),
        status: "pending",
        answered_by: null,
        answered_at: null,
        scope: null,
        consumed_at: null,
      };
      this.deps.database
        .prepare(
          `INSERT INTO approvals (id, task_id, session_id, user_key, kind, summary, subject, rule, reason, created_at, expires_at, status)
           VALUES (@id, @task_id, @session_id, @user_key, @kind, @summary, @subject, @rule, @reason, @created_at, @expires_at, 'pending')`,
        )
        .run(record);
    }
    const promise = this.wait(record, args.signal);
    this.announce(record);
    return promise;
  }

  /** An MCP tool's summary (what every channel shows), with what changed since it was approved (see mcpChangeKey). */
  private withMcpChange(args: ApprovalRequestArgs): string {
    if (args.kind !== "mcp") return args.summary;
    const row = this.deps.database
      .prepare("SELECT value FROM settings WHERE key = ?")
      .get(mcpChangeKey(args.subject));
    if (row === undefined) return args.summary;
    return `${args.summary} — ${z.object({ value: z.string() }).parse(row).value}`;
  }

  /**
   * Answers a pending approval. Only the person whose task asked (or an owner) may answer; an
   * answer to an expired, unknown or already answered approval is refused with the reason.
   */
  answer(
    approvalId: string,
    decision: ApprovalDecision,
    answeredBy: string,
    options: { prefix?: string } = {},
  ): { status: "approved" | "denied"; scope?: ApprovalScope; grant?: Grant } {
    const record = this.get(approvalId);
    if (!record)
      throw new ApprovalError(`No approval with id ${approvalId}. Check the id in the approval message.`);
    const owners = this.deps.owners ?? ["owner"];
    if (answeredBy !== record.user_key && !owners.includes(answeredBy)) {
      throw new ApprovalError(
        `Approval ${approvalId} belongs to ${record.user_key}'s task; ${answeredBy} cannot answer it. Ask ${record.user_key} or the owner.`,
      );
    }
    const now = this.clock.now();
    if (record.status === "pending" && new Date(record.expires_at).getTime() <= now.getTime()) {
      this.expire(record.id);
      throw new ApprovalError(
        `Approval ${approvalId} expired at ${record.expires_at}; the task was told. Ask it to try again.`,
      );
    }
    if (record.status !== "pending") {
      throw new ApprovalError(
        `Approval ${approvalId} is already ${record.status}${record.answered_by ? ` (by ${record.answered_by})` : ""}.`,
      );
    }
    const approved = decision !== "deny";
    let grant: Grant | undefined;
    if (decision === "session" || decision === "always") {
      grant = this.grants.add({
        userKey: record.user_key,
        sessionId: decision === "session" ? record.session_id : null,
        scope: decision,
        kind: record.kind,
        subject: record.subject,
        prefix: options.prefix,
        createdBy: answeredBy,
      });
    } else if (options.prefix !== undefined) {
      throw new ApprovalError("A prefix can only be given with a 'session' or 'always' answer.");
    }
    this.deps.database
      .prepare(
        "UPDATE approvals SET status = ?, answered_by = ?, answered_at = ?, scope = ? WHERE id = ? AND status = 'pending'",
      )
      .run(
        approved ? "approved" : "denied",
        answeredBy,
        now.toISOString(),
        approved ? decision : null,
        record.id,
      );
    this.emitResolved(record, decision, answeredBy);
    const outcome: ApprovalOutcome = approved
      ? { status: "approved", approvalId: record.id, scope: decision as ApprovalScope, answeredBy }
      : { status: "denied", approvalId: record.id, answeredBy };
    if (approved && (this.waiters.get(record.id) ?? []).some((waiter) => waiter.real)) {
      // The waiting task uses the answer now; a later request for the same subject must ask again (or hit the grant).
      this.deps.database
        .prepare("UPDATE approvals SET consumed_at = ? WHERE id = ?")
        .run(now.toISOString(), record.id);
    }
    this.settle(record.id, outcome);
    const result: { status: "approved" | "denied"; scope?: ApprovalScope; grant?: Grant } = {
      status: outcome.status,
    };
    if (approved) result.scope = decision as ApprovalScope;
    if (grant) result.grant = grant;
    return result;
  }

  /**
   * After a restart: marks approvals whose time ran out as expired, re-announces the ones still
   * pending (so the person is asked again) and arms their expiry. Returns the pending ones.
   */
  pendingForRestart(): ApprovalRecord[] {
    this.withdrawForEndedTasks();
    const now = this.clock.now().toISOString();
    const overdue = this.rows("SELECT * FROM approvals WHERE status = 'pending' AND expires_at <= ?", now);
    for (const record of overdue) this.expire(record.id);
    const pending = this.rows("SELECT * FROM approvals WHERE status = 'pending' ORDER BY created_at");
    for (const record of pending) {
      if (!this.waiters.has(record.id)) this.armExpiry(record);
      this.announce(record);
    }
    return pending;
  }

  get(approvalId: string): ApprovalRecord | null {
    const row: unknown = this.deps.database.prepare("SELECT * FROM approvals WHERE id = ?").get(approvalId);
    return row === undefined ? null : approvalRow.parse(row);
  }

  /**
   * A question whose task has ended (stopped from Telegram, the dashboard or another terminal,
   * finished, failed) has nobody waiting for its answer: it is closed as expired, so it is neither
   * shown as pending nor asked again after a restart. A running or paused task keeps its question.
   */
  withdrawForEndedTasks(): number {
    const ended = this.rows(
      `SELECT approvals.* FROM approvals JOIN tasks ON tasks.id = approvals.task_id
       WHERE approvals.status = 'pending' AND tasks.status IN ('completed', 'failed', 'cancelled')`,
    );
    const at = this.clock.now().toISOString();
    let withdrawn = 0;
    for (const record of ended) {
      const result = this.deps.database
        .prepare(
          "UPDATE approvals SET status = 'expired', answered_at = ? WHERE id = ? AND status = 'pending'",
        )
        .run(at, record.id);
      if (result.changes === 0) continue;
      withdrawn++;
      this.emitResolved(record, "expired", "system");
      this.settle(record.id, {
        status: "expired",
        approvalId: record.id,
        waitedMinutes: 0,
        message: `The task ended before anyone answered; nothing was run for: ${record.summary}`,
      });
    }
    return withdrawn;
  }

  /** Pending approvals for one person (for /status and chat). */
  pendingFor(userKey: string): ApprovalRecord[] {
    this.withdrawForEndedTasks();
    return this.rows(
      "SELECT * FROM approvals WHERE status = 'pending' AND user_key = ? ORDER BY created_at",
      userKey,
    );
  }

  /** Allow-all for one session (default 30 minutes), audited; never covers hardline or secret paths. */
  setAllowAll(sessionId: string, minutes = defaultAllowAllMinutes, grantedBy = "owner"): { until: Date } {
    return this.allowAll.set(sessionId, minutes, grantedBy);
  }

  /** Returns true when an active allow-all was revoked. */
  revokeAllowAll(sessionId: string, revokedBy = "owner"): boolean {
    return this.allowAll.revoke(sessionId, revokedBy);
  }

  allowAllStatus(sessionId: string): { active: boolean; until: Date | null } {
    return this.allowAll.status(sessionId);
  }

  /** Stops expiry timers (process shutdown); pending rows stay pending for the next process. */
  close(): void {
    for (const list of this.waiters.values()) for (const waiter of list) waiter.cleanup();
    this.waiters.clear();
  }

  private findReusable(args: ApprovalRequestArgs): ApprovalRecord | null {
    const now = this.clock.now().toISOString();
    const rows = this.rows(
      `SELECT * FROM approvals WHERE task_id = ? AND kind = ? AND subject = ?
         AND ((status = 'pending' AND expires_at > ?) OR (status = 'approved' AND consumed_at IS NULL))
       ORDER BY created_at DESC LIMIT 1`,
      args.taskId,
      args.kind,
      args.subject,
      now,
    );
    return rows[0] ?? null;
  }

  private rows(sql: string, ...params: unknown[]): ApprovalRecord[] {
    const rows: unknown[] = this.deps.database.prepare(sql).all(...params);
    return rows.map((row) => approvalRow.parse(row));
  }

  private wait(record: ApprovalRecord, signal: AbortSignal | undefined): Promise<ApprovalOutcome> {
    return new Promise<ApprovalOutcome>((resolve, reject) => {
      const onAbort = () => {
        this.removeWaiter(record.id, waiter);
        reject(signal?.reason ?? new Error("approval wait aborted"));
      };
      const waiter: Waiter = {
        real: true,
        resolve,
        reject,
        timer: null,
        cleanup: () => {
          if (waiter.timer) clearTimeout(waiter.timer);
          signal?.removeEventListener("abort", onAbort);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const list = this.waiters.get(record.id) ?? [];
      list.push(waiter);
      this.waiters.set(record.id, list);
      waiter.timer = this.expiryTimer(record);
    });
  }

  private armExpiry(record: ApprovalRecord): void {
    const waiter: Waiter = {
      real: false,
      resolve: () => {},
      reject: () => {},
      timer: null,
      cleanup: () => {
        if (waiter.timer) clearTimeout(waiter.timer);
      },
    };
    waiter.resolve = () => waiter.cleanup();
    waiter.reject = () => waiter.cleanup();
    waiter.timer = this.expiryTimer(record);
    this.waiters.set(record.id, [waiter]);
  }

  private expiryTimer(record: ApprovalRecord): NodeJS.Timeout {
    const delay = Math.max(0, new Date(record.expires_at).getTime() - this.clock.now().getTime());
    const timer = setTimeout(() => this.expire(record.id), delay);
    timer.unref();
    return timer;
  }

  private expire(approvalId: string): void {
    const record = this.get(approvalId);
    if (!record) return;
    const result = this.deps.database
      .prepare("UPDATE approvals SET status = 'expired', answered_at = ? WHERE id = ? AND status = 'pending'")
      .run(this.clock.now().toISOString(), approvalId);
    if (result.changes === 0 && record.status !== "expired") return;
    const waitedMs = new Date(record.expires_at).getTime() - new Date(record.created_at).getTime();
    const waitedMinutes = Math.max(1, Math.round(waitedMs / 60_000));
    const message =
      `The approval request expired after ${waitedMs < 60_000 ? `${Math.round(waitedMs / 1000)} seconds` : `${waitedMinutes} minutes`}; ` +
      `the user did not answer. Nothing was run for: ${record.summary}`;
    if (result.changes > 0) this.emitResolved(record, "expired", "system");
    this.settle(approvalId, { status: "expired", approvalId, waitedMinutes, message });
  }

  private settle(approvalId: string, outcome: ApprovalOutcome): void {
    const list = this.waiters.get(approvalId) ?? [];
    this.waiters.delete(approvalId);
    for (const waiter of list) {
      waiter.cleanup();
      waiter.resolve(outcome);
    }
  }

  private removeWaiter(approvalId: string, waiter: Waiter): void {
    waiter.cleanup();
    const list = (this.waiters.get(approvalId) ?? []).filter((entry) => entry !== waiter);
    if (list.length === 0) this.waiters.delete(approvalId);
    else this.waiters.set(approvalId, list);
  }

  private announce(record: ApprovalRecord): void {
    this.deps.onEvent?.({
      type: "approval-request",
      approvalId: record.id,
      summary: record.summary,
      rule: record.rule,
      expiresAt: record.expires_at,
      taskId: record.task_id,
      sessionId: record.session_id,
      userKey: record.user_key,
      at: this.clock.now().toISOString(),
    });
  }

  private emitResolved(record: ApprovalRecord, decision: string, by: string): void {
    this.deps.onEvent?.({
      type: "approval-resolved",
      approvalId: record.id,
      decision,
      by,
      taskId: record.task_id,
      sessionId: record.session_id,
      userKey: record.user_key,
      at: this.clock.now().toISOString(),
    });
  }
}
