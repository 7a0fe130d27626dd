import type { Migration } from "./types.js";

/**
 * Skills state: which workspaces the owner trusts to supply skills, which skills are disabled,
 * every use of a skill and the outcome of the task that used it, learned drafts awaiting review,
 * and every version of a skill Mercury wrote (so each change can be reverted). Also lets approvals
 * and grants hold the new `mcp` kind.
 */
export const skillsMigration: Migration = {
  version: 10,
  name: "skills",
  up(database) {
    database.exec(`
      CREATE TABLE skill_trusted_workspaces (
        path TEXT PRIMARY KEY,
        trusted_at TEXT NOT NULL,
        trusted_by TEXT NOT NULL
      );
      CREATE TABLE skill_disabled (
        name TEXT PRIMARY KEY,
        disabled_at TEXT NOT NULL
      );
      CREATE TABLE skill_uses (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        skill TEXT NOT NULL,
        task_id TEXT NOT NULL,
        used_at TEXT NOT NULL,
        outcome TEXT,
        UNIQUE (skill, task_id)
      );
      CREATE INDEX skill_uses_skill ON skill_uses(skill, id);
      CREATE TABLE skill_drafts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('new','edit')),
        content TEXT NOT NULL,
        previous TEXT,
        diff TEXT NOT NULL,
        evidence TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending','approved','rejected')),
        created_at TEXT NOT NULL,
        reviewed_at TEXT,
        reviewed_by TEXT
      );
      CREATE INDEX skill_drafts_status ON skill_drafts(status, id);
      -- MCP calls are their own kind of approval and grant: the CHECKs of migration 4 are widened by
      -- rebuilding both tables (SQLite cannot alter a CHECK), keeping every row and index.
      CREATE TABLE approvals_next (
        id TEXT PRIMARY KEY,
        task_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        user_key TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('command','path','network','mcp')),
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
      INSERT INTO approvals_next SELECT id, task_id, session_id, user_key, kind, summary, subject, rule, reason,
        created_at, expires_at, status, answered_by, answered_at, scope, consumed_at FROM approvals;
      DROP TABLE approvals;
      ALTER TABLE approvals_next RENAME TO approvals;
      CREATE INDEX approvals_status ON approvals(status, expires_at);
      CREATE INDEX approvals_task_subject ON approvals(task_id, subject);

      CREATE TABLE permission_grants_next (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_key TEXT NOT NULL,
        session_id TEXT,
        scope TEXT NOT NULL CHECK (scope IN ('session','always')),
        kind TEXT NOT NULL CHECK (kind IN ('command','path','network','mcp')),
        subject TEXT NOT NULL,
        match TEXT NOT NULL CHECK (match IN ('exact','prefix')),
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL,
        revoked_at TEXT
      );
      INSERT INTO permission_grants_next SELECT id, user_key, session_id, scope, kind, subject, match,
        created_at, created_by, revoked_at FROM permission_grants;
      DROP TABLE permission_grants;
      ALTER TABLE permission_grants_next RENAME TO permission_grants;
      CREATE INDEX permission_grants_lookup ON permission_grants(user_key, kind, revoked_at);

      CREATE TABLE skill_versions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        content TEXT,
        reason TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (name, version)
      );
    `);
  },
};
