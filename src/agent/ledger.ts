import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { SqliteDatabase } from "../storage/database.js";
import { type Clock, systemClock } from "./clock.js";
import type { Outcome } from "./events.js";
import { claimTask, liveOwner } from "./task-owner.js";

export const ledgerStatuses = [
  "queued",
  "running",
  "paused",
  "completed",
  "responded",
  "failed",
  "cancelled",
] as const;
export type LedgerStatus = (typeof ledgerStatuses)[number];

export interface LedgerTask {
  id: string;
  sessionId: string;
  userKey: string;
  channel: string;
  input: string;
  cwd: string;
  status: LedgerStatus;
  outcome: Outcome | null;
  /** The blocker of a pause, the cause of a failure, or who cancelled. */
  reason: string | null;
  /** How often the user said "continue" to a pause of this task. */
  continuations: number;
  /** How often a restart resumed this task after a crash. */
  resumes: number;
  finalAnswer: string | null;
  createdAt: string;
  updatedAt: string;
}

const taskRow = z.object({
  id: z.string(),
  session_id: z.string(),
  user_key: z.string(),
  channel: z.string(),
  input: z.string(),
  cwd: z.string(),
  status: z.enum(ledgerStatuses),
  outcome: z.enum(["completed", "responded", "paused", "failed", "cancelled"]).nullable(),
  reason: z.string().nullable(),
  continuations: z.number().int(),
  resumes: z.number().int(),
  final_answer: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

function toTask(value: unknown): LedgerTask {
  const row = taskRow.parse(value);
  return {
    id: row.id,
    sessionId: row.session_id,
    userKey: row.user_key,
    channel: row.channel,
    input: row.input,
    cwd: row.cwd,
    status: row.status,
    outcome: row.outcome,
    reason: row.reason,
    continuations: row.continuations,
    resumes: row.resumes,
    finalAnswer: row.final_answer,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Maps an agent outcome onto the ledger. Every outcome is its own status: a plain answer is stored
 * as "responded", never as "completed" (completed means verified changes).
 */
export function statusForOutcome(outcome: Outcome): LedgerStatus {
  return outcome;
}

/**
 * Which task is "latest" is the order of the ledger's writes, never a wall clock: after the clock is
 * set back (NTP, a laptop's dead battery, a VM restored), an older task's `updated_at` sorted after a
 * newer one's and "continue" resumed the wrong task (or none). Every write that changes a task's
 * status moves its row to the end of the table's rowid sequence, inside the same statement (SQLite
 * serialises writers, so the sequence is total across processes). `updated_at` stays for display.
 * The rowid is nobody's key: other tables reference `tasks(id)`.
 */
const NEXT_IN_SEQUENCE = "rowid = (SELECT MAX(rowid) FROM tasks) + 1";

export class LedgerError extends Error {
  override name = "LedgerError";
}

/**
 * The persistent work ledger. Every write is a single statement, so the row a crash leaves behind
 * always says where the task was: 'running' means interrupted (resume it), 'cancelled' means a
 * person stopped it (never resume it), 'paused' waits for "continue".
 */
export class WorkLedger {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock = systemClock,
  ) {}

  create(entry: {
    id?: string;
    sessionId: string;
    userKey: string;
    channel: string;
    input: string;
    cwd: string;
  }): LedgerTask {
    const id = entry.id ?? randomUUID();
    const now = this.now();
    this.database
      .prepare(
        `INSERT INTO tasks (id, session_id, user_key, channel, input, cwd, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?)`,
      )
      .run(id, entry.sessionId, entry.userKey, entry.channel, entry.input, entry.cwd, now, now);
    return this.require(id);
  }

  get(id: string): LedgerTask | null {
    const row: unknown = this.database.prepare("SELECT * FROM tasks WHERE id = ?").get(id);
    return row === undefined ? null : toTask(row);
  }

  require(id: string): LedgerTask {
    const task = this.get(id);
    if (!task) throw new LedgerError(`no task ${id} in the work ledger`);
    return task;
  }

  /**
   * queued|paused|running -> running. `resume` marks a restart after a crash, `continuation` a
   * "continue" from the user; a finished or cancelled task cannot run again.
   */
  markRunning(id: string, kind: "first" | "resume" | "continuation" = "first"): LedgerTask {
    // A failed task runs again only by the user's "continue" (see continuable()).
    const statuses =
      kind === "continuation" ? "'queued','running','paused','failed'" : "'queued','running','paused'";
    const result = this.database
      .prepare(
        `UPDATE tasks SET status = 'running', reason = NULL, updated_at = ?, ${NEXT_IN_SEQUENCE},
           resumes = resumes + ?, continuations = continuations + ?
         WHERE id = ? AND status IN (${statuses})`,
      )
      .run(this.now(), kind === "resume" ? 1 : 0, kind === "continuation" ? 1 : 0, id);
    if (result.changes === 0) {
      const task = this.get(id);
      throw new LedgerError(
        task
          ? `task ${id} is ${task.status} and cannot run again; start a new task instead`
          : `no task ${id} in the work ledger`,
      );
    }
    return this.require(id);
  }

  /**
   * markRunning() and this process recorded as the task's owner (MERCURY_HOME/running/) in one step:
   * the owner check, the ledger write and the owner file happen under SQLite's write lock, which
   * every claimant takes first (BEGIN IMMEDIATE). Checking the owner, then marking, then letting
   * Agent.run write the owner file left a gap in which a second "continue" (another terminal, the
   * daemon's start) saw a running row with no live owner and ran the task a second time.
   */
  claim(id: string, kind: "first" | "resume" | "continuation", home: string): LedgerTask {
    return this.database
      .transaction(() => {
        const owner = liveOwner(home, id);
        if (owner && owner.pid !== process.pid)
          throw new LedgerError(
            `task ${id} is still running in another Mercury process (pid ${owner.pid}); wait for it to end or stop it there, then say "continue"`,
          );
        const task = this.markRunning(id, kind);
        claimTask(home, id);
        return task;
      })
      .immediate();
  }

  /**
   * Records how the task ended. A task already cancelled by a person stays cancelled (the answer
   * text, if any, is kept): a stop is never turned back into "completed" by a late report.
   */
  finish(id: string, report: { outcome: Outcome; text: string; reason?: string }): LedgerTask {
    const status = statusForOutcome(report.outcome);
    const now = this.now();
    this.database
      .prepare(
        `UPDATE tasks SET
           status = CASE WHEN status = 'cancelled' THEN 'cancelled' ELSE ? END,
           outcome = CASE WHEN status = 'cancelled' THEN 'cancelled' ELSE ? END,
           reason = CASE WHEN status = 'cancelled' THEN reason ELSE ? END,
           final_answer = ?, updated_at = ?, ${NEXT_IN_SEQUENCE}
         WHERE id = ?`,
      )
      .run(status, report.outcome, report.reason ?? null, report.text, now, id);
    return this.require(id);
  }

  /** Parks an active task for "continue" (e.g. one that keeps crashing the process). */
  pause(id: string, reason: string): boolean {
    const result = this.database
      .prepare(
        `UPDATE tasks SET status = 'paused', outcome = 'paused', reason = ?, updated_at = ?, ${NEXT_IN_SEQUENCE}
         WHERE id = ? AND status IN ('queued','running')`,
      )
      .run(reason, this.now(), id);
    return result.changes > 0;
  }

  /** A deliberate stop (/stop, SIGTERM, `mercury stop`): the task is never resumed. */
  cancel(id: string, reason: string): boolean {
    const result = this.database
      .prepare(
        `UPDATE tasks SET status = 'cancelled', outcome = 'cancelled', reason = ?, updated_at = ?, ${NEXT_IN_SEQUENCE}
         WHERE id = ? AND status IN ('queued','running','paused')`,
      )
      .run(reason, this.now(), id);
    return result.changes > 0;
  }

  /** Cancels every queued or running task (graceful shutdown); returns their ids. */
  cancelActive(reason: string, mine: (task: LedgerTask) => boolean = () => true): string[] {
    const ids = this.list({ statuses: ["queued", "running"] })
      .filter(mine)
      .map((task) => task.id);
    for (const id of ids) this.cancel(id, reason);
    return ids;
  }

  /** What a crash left behind: tasks that were queued or running when the process died. */
  interrupted(): LedgerTask[] {
    return this.list({ statuses: ["queued", "running"], order: "asc" });
  }

  /** The user's most recent paused task, which "continue" resumes. */
  latestPaused(userKey: string): LedgerTask | null {
    const row: unknown = this.database
      .prepare("SELECT * FROM tasks WHERE user_key = ? AND status = 'paused' ORDER BY rowid DESC LIMIT 1")
      .get(userKey);
    return row === undefined ? null : toTask(row);
  }

  /**
   * The task a "continue" resumes: the session's latest task when it failed (its checks failed, its
   * provider was down), else the user's latest paused task. A failed task's evidence stays with it,
   * so "continue" after failing checks is judged on every change, never a fresh task that only talks.
   */
  continuable(userKey: string, sessionId: string): LedgerTask | null {
    const row: unknown = this.database
      .prepare("SELECT * FROM tasks WHERE session_id = ? ORDER BY rowid DESC LIMIT 1")
      .get(sessionId);
    if (row !== undefined) {
      const task = toTask(row);
      if (task.status === "failed" && task.userKey === userKey) return task;
    }
    return this.latestPaused(userKey);
  }

  /**
   * The session's latest other task when it did not end: failed, paused, or left running by a
   * process that died. A new task in the session (a "try again" that is no "continue") answers
   * beside it, and must not read as if that work were verified.
   */
  unfinishedBefore(sessionId: string, taskId: string): LedgerTask | null {
    const task = this.latestOtherInSession(sessionId, taskId);
    return task && ["paused", "failed", "running", "queued"].includes(task.status) ? task : null;
  }

  /** The session's latest task other than `taskId`, by the order of writes, whatever its status. */
  latestOtherInSession(sessionId: string, taskId: string): LedgerTask | null {
    const row: unknown = this.database
      .prepare("SELECT * FROM tasks WHERE session_id = ? AND id != ? ORDER BY rowid DESC LIMIT 1")
      .get(sessionId, taskId);
    return row === undefined ? null : toTask(row);
  }

  /**
   * The task a "continue" in this session resumes: the latest one paused, failed (see
   * continuable()), or left running by a process that died (a crash). Null when the session's
   * latest task completed, responded or was cancelled.
   */
  resumableInSession(sessionId: string): LedgerTask | null {
    const row: unknown = this.database
      .prepare("SELECT * FROM tasks WHERE session_id = ? ORDER BY rowid DESC LIMIT 1")
      .get(sessionId);
    if (row === undefined) return null;
    const task = toTask(row);
    return ["paused", "failed", "running", "queued"].includes(task.status) ? task : null;
  }

  list(
    filter: {
      statuses?: readonly LedgerStatus[];
      userKey?: string;
      limit?: number;
      order?: "asc" | "desc";
      /**
       * "creation" (default) orders by created_at; "write" by the rowid sequence, where every status
       * change and saved evidence moves a task to the end: the order "latest" means everywhere else.
       */
      by?: "creation" | "write";
      sessionId?: string;
    } = {},
  ): LedgerTask[] {
    const clauses: string[] = [];
    const params: (string | number)[] = [];
    if (filter.statuses && filter.statuses.length > 0) {
      clauses.push(`status IN (${filter.statuses.map(() => "?").join(",")})`);
      params.push(...filter.statuses);
    }
    if (filter.userKey !== undefined) {
      clauses.push("user_key = ?");
      params.push(filter.userKey);
    }
    if (filter.sessionId !== undefined) {
      clauses.push("session_id = ?");
      params.push(filter.sessionId);
    }
    const where = clauses.length > 0 ? `WHERE ${clauses.join(" AND ")}` : "";
    const direction = filter.order === "asc" ? "ASC" : "DESC";
    const limit = filter.limit !== undefined ? ` LIMIT ${Math.max(1, Math.floor(filter.limit))}` : "";
    const order =
      filter.by === "write" ? `rowid ${direction}` : `created_at ${direction}, rowid ${direction}`;
    const rows: unknown[] = this.database
      .prepare(`SELECT * FROM tasks ${where} ORDER BY ${order}${limit}`)
      .all(...params);
    return rows.map(toTask);
  }

  counts(): Record<LedgerStatus, number> {
    const counts = Object.fromEntries(ledgerStatuses.map((status) => [status, 0])) as Record<
      LedgerStatus,
      number
    >;
    const rows = z
      .array(z.object({ status: z.enum(ledgerStatuses), n: z.number().int() }))
      .parse(this.database.prepare("SELECT status, COUNT(*) AS n FROM tasks GROUP BY status").all());
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}
