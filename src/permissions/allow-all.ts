import { z } from "zod";
import type { Clock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";
import { AuditLog } from "./audit.js";

export const defaultAllowAllMinutes = 30;

export class AllowAllError extends Error {
  override name = "AllowAllError";
}

/**
 * Per-session allow-all windows: time-limited, revocable, audited. Only the session's own
 * top-level tasks consult it (see authorizer.ts); derived contexts never do.
 */
export class AllowAllStore {
  private readonly audit: AuditLog;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {
    this.audit = new AuditLog(database, clock);
  }

  set(sessionId: string, minutes = defaultAllowAllMinutes, grantedBy = "owner"): { until: Date } {
    if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60) {
      throw new AllowAllError(
        `allow-all needs a duration between 1 minute and 24 hours, got ${minutes} minutes`,
      );
    }
    const now = this.clock.now();
    const until = new Date(now.getTime() + minutes * 60_000);
    const revoke = this.database.prepare(
      "UPDATE allow_all SET revoked_at = ?, revoked_by = ? WHERE session_id = ? AND revoked_at IS NULL",
    );
    const insert = this.database.prepare(
      "INSERT INTO allow_all (session_id, granted_by, created_at, until) VALUES (?, ?, ?, ?)",
    );
    this.database.transaction(() => {
      revoke.run(now.toISOString(), `${grantedBy} (replaced)`, sessionId);
      insert.run(sessionId, grantedBy, now.toISOString(), until.toISOString());
      this.audit.record({
        sessionId,
        tool: "allow-all",
        summary: `allow-all for session ${sessionId} for ${minutes} minutes`,
        decision: "allow",
        outcome: "allowed",
        rule: "allow-all.set",
        reason: `until ${until.toISOString()}; never covers hardline commands or secret paths`,
        approvedBy: grantedBy,
      });
    })();
    return { until };
  }

  /** Returns true when an active allow-all was revoked. */
  revoke(sessionId: string, revokedBy = "owner"): boolean {
    const now = this.clock.now().toISOString();
    const result = this.database
      .prepare(
        "UPDATE allow_all SET revoked_at = ?, revoked_by = ? WHERE session_id = ? AND revoked_at IS NULL AND until > ?",
      )
      .run(now, revokedBy, sessionId, now);
    if (result.changes > 0) {
      this.audit.record({
        sessionId,
        tool: "allow-all",
        summary: `allow-all revoked for session ${sessionId}`,
        decision: "ask",
        outcome: "refused",
        rule: "allow-all.revoke",
        reason: "approvals are asked again",
        approvedBy: revokedBy,
      });
    }
    return result.changes > 0;
  }

  status(sessionId: string): { active: boolean; until: Date | null } {
    const now = this.clock.now().toISOString();
    const row: unknown = this.database
      .prepare(
        "SELECT until FROM allow_all WHERE session_id = ? AND revoked_at IS NULL AND until > ? ORDER BY id DESC LIMIT 1",
      )
      .get(sessionId, now);
    if (row === undefined) return { active: false, until: null };
    const { until } = z.object({ until: z.string() }).parse(row);
    return { active: true, until: new Date(until) };
  }
}
