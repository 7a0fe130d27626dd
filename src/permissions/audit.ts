import { z } from "zod";
import type { Clock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";
import { redactSecrets } from "./redact.js";

export interface AuditEntry {
  taskId?: string;
  sessionId?: string;
  userKey?: string;
  tool: string;
  summary: string;
  decision: "allow" | "ask" | "deny";
  outcome: "allowed" | "refused";
  rule: string;
  reason: string;
  /** "policy", "grant:<id>", "allow-all", or the user key of the person who approved. */
  approvedBy?: string;
  approvalId?: string;
}

const auditRow = z.object({
  id: z.number(),
  at: z.string(),
  task_id: z.string().nullable(),
  session_id: z.string().nullable(),
  user_key: z.string().nullable(),
  tool: z.string(),
  summary: z.string(),
  decision: z.enum(["allow", "ask", "deny"]),
  outcome: z.enum(["allowed", "refused"]),
  rule: z.string(),
  reason: z.string(),
  approved_by: z.string().nullable(),
  approval_id: z.string().nullable(),
});

export type AuditRecord = z.infer<typeof auditRow>;

/** Every permission decision, with secrets redacted from the summary and reason. */
export class AuditLog {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {}

  record(entry: AuditEntry): void {
    this.database
      .prepare(
        `INSERT INTO permission_audit (at, task_id, session_id, user_key, tool, summary, decision, outcome, rule, reason, approved_by, approval_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        this.clock.now().toISOString(),
        entry.taskId ?? null,
        entry.sessionId ?? null,
        entry.userKey ?? null,
        entry.tool,
        redactSecrets(entry.summary).slice(0, 2000),
        entry.decision,
        entry.outcome,
        entry.rule,
        redactSecrets(entry.reason).slice(0, 2000),
        entry.approvedBy ?? null,
        entry.approvalId ?? null,
      );
  }

  /** Newest first. */
  list(limit = 50): AuditRecord[] {
    const rows: unknown[] = this.database
      .prepare("SELECT * FROM permission_audit ORDER BY id DESC LIMIT ?")
      .all(limit);
    return rows.map((row) => auditRow.parse(row));
  }
}
