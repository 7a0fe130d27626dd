import type { Migration } from "./types.js";

/**
 * Skills state: which workspaces the owner trusts to supply skills, which skills are disabled,
 * every use of a skill and the outcome of the task that used it, learned drafts awaiting review,
 * and every version of a skill Mercury wrote (so each change can be reverted).
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
