import type { Migration } from "./types.js";

/**
 * The permission engine's state: approvals waiting for a person (they survive restarts), the
 * standing grants people gave, per-session allow-all windows and the audit log of every decision.
 * No foreign keys to sessions: a policy check from the CLI has no session row.
 */
export const permissionsMigration: Migration = {
  version: 4,
  name: "permissions",
  up(database) {
    database.exec(`
      CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        task_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        user_key TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('command','path','network')),
        summary TEXT NOT NULL,
        subject TEXT NOT NULL,
        rule TEXT NOT NULL,
        reason TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending','approved','denied','expired')),
        answered_by TEXT,
        answered_at TEXT,
        scope TEXT CHECK (scope IN ('once','session','always')),
        consumed_at TEXT
      );
      CREATE INDEX approvals_status ON approvals(status, expires_at);
      CREATE INDEX approvals_task_subject ON approvals(task_id, subject);

      CREATE TABLE permission_grants (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_key TEXT NOT NULL,
        session_id TEXT,
        scope TEXT NOT NULL CHECK (scope IN ('session','always')),
        kind TEXT NOT NULL CHECK (kind IN ('command','path','network')),
        subject TEXT NOT NULL,
        match TEXT NOT NULL CHECK (match IN ('exact','prefix')),
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE INDEX permission_grants_lookup ON permission_grants(user_key, kind, revoked_at);

      CREATE TABLE allow_all (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        granted_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        until TEXT NOT NULL,
        revoked_at TEXT,
        revoked_by TEXT
      );
      CREATE INDEX allow_all_session ON allow_all(session_id, revoked_at);

      CREATE TABLE permission_audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        task_id TEXT,
        session_id TEXT,
        user_key TEXT,
        tool TEXT NOT NULL,
        summary TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('allow','ask','deny')),
        outcome TEXT NOT NULL CHECK (outcome IN ('allowed','refused')),
        rule TEXT NOT NULL,
        reason TEXT NOT NULL,
        approved_by TEXT,
        approval_id TEXT
      );
      CREATE INDEX permission_audit_at ON permission_audit(at);
    `);
  },
};
