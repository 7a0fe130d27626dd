import { join } from "node:path";
import { z } from "zod";
import type { Clock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";
import { workspaceSkillPins } from "./pins.js";

const pinsKey = (workspace: string) => `skills.workspace-pins:${workspace}`;
/** Pins of the skills in `$MERCURY_HOME/skills` ("mercury") and `~/.agents/skills` ("user"). */
const homePinsKey = (source: HomeSkillSource) => `skills.home-pins:${source}`;
export type HomeSkillSource = "mercury" | "user";

const useRow = z.object({
  skill: z.string(),
  task_id: z.string(),
  used_at: z.string(),
  outcome: z.string().nullable(),
});
export type SkillUse = z.infer<typeof useRow>;

const versionRow = z.object({
  name: z.string(),
  version: z.number(),
  content: z.string().nullable(),
  reason: z.string(),
  created_at: z.string(),
});
export type SkillVersion = z.infer<typeof versionRow>;

export interface SkillRecord {
  uses: number;
  completed: number;
  failed: number;
  /** Outcomes of the most recent finished uses, newest first. */
  recent: string[];
  /** True when a skill keeps failing: at least 3 of its last 5 finished uses failed. */
  flagged: boolean;
}

/** Outcomes that count against a skill: the task it was used in did not get done. */
const failingOutcomes = new Set(["failed", "cancelled", "paused"]);

/** The skills state kept in SQLite: trusted workspaces, disabled skills, uses and versions. */
export class SkillState {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  isTrusted(workspace: string): boolean {
    return (
      this.database.prepare("SELECT 1 FROM skill_trusted_workspaces WHERE path = ?").get(workspace) !==
      undefined
    );
  }

  /**
   * Trusts a workspace's `.agents/skills` as they are now: each skill folder is pinned (pins.ts), and
   * one added or changed later is not read until the owner trusts the workspace again.
   */
  trust(workspace: string, by: string): void {
    const pins = workspaceSkillPins(join(workspace, ".agents", "skills"));
    this.database.transaction(() => {
      this.database
        .prepare(
          "INSERT OR REPLACE INTO skill_trusted_workspaces (path, trusted_at, trusted_by) VALUES (?, ?, ?)",
        )
        .run(workspace, this.now(), by);
      this.database
        .prepare("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)")
        .run(pinsKey(workspace), JSON.stringify(pins));
    })();
  }

  /** The skill folders the owner trusted in a workspace; null when none were recorded. */
  workspacePins(workspace: string): Record<string, string> | null {
    const row = this.database.prepare("SELECT value FROM settings WHERE key = ?").get(pinsKey(workspace));
    if (row === undefined) return null;
    const { value } = z.object({ value: z.string() }).parse(row);
    return z.record(z.string(), z.string()).parse(JSON.parse(value));
  }

  /** The pins of a home skill folder (pins.ts); null before Mercury first recorded them. */
  homePins(source: HomeSkillSource): Record<string, string> | null {
    const row = this.database.prepare("SELECT value FROM settings WHERE key = ?").get(homePinsKey(source));
    if (row === undefined) return null;
    const { value } = z.object({ value: z.string() }).parse(row);
    return z.record(z.string(), z.string()).parse(JSON.parse(value));
  }

  setHomePins(source: HomeSkillSource, pins: Record<string, string>): void {
    this.database
      .prepare("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)")
      .run(homePinsKey(source), JSON.stringify(pins));
  }

  /** Pins one skill folder as it is now (fingerprint), or forgets it (null). */
  pinHomeSkill(source: HomeSkillSource, key: string, fingerprint: string | null): void {
    this.database.transaction(() => {
      const pins = this.homePins(source) ?? {};
      if (fingerprint === null) delete pins[key];
      else pins[key] = fingerprint;
      this.setHomePins(source, pins);
    })();
  }

  /** Returns false when the workspace was not trusted. */
  untrust(workspace: string): boolean {
    this.database.prepare("DELETE FROM settings WHERE key = ?").run(pinsKey(workspace));
    return (
      this.database.prepare("DELETE FROM skill_trusted_workspaces WHERE path = ?").run(workspace).changes > 0
    );
  }

  trustedWorkspaces(): string[] {
    const rows: unknown[] = this.database
      .prepare("SELECT path FROM skill_trusted_workspaces ORDER BY path")
      .all();
    return rows.map((row) => z.object({ path: z.string() }).parse(row).path);
  }

  disabledNames(): Set<string> {
    const rows: unknown[] = this.database.prepare("SELECT name FROM skill_disabled").all();
    return new Set(rows.map((row) => z.object({ name: z.string() }).parse(row).name));
  }

  setDisabled(name: string, disabled: boolean): boolean {
    if (disabled) {
      return (
        this.database
          .prepare("INSERT OR IGNORE INTO skill_disabled (name, disabled_at) VALUES (?, ?)")
          .run(name, this.now()).changes > 0
      );
    }
    return this.database.prepare("DELETE FROM skill_disabled WHERE name = ?").run(name).changes > 0;
  }

  recordUse(skill: string, taskId: string): void {
    this.database
      .prepare("INSERT OR IGNORE INTO skill_uses (skill, task_id, used_at) VALUES (?, ?, ?)")
      .run(skill, taskId, this.now());
  }

  /**
   * The skills activated by earlier tasks of the session `taskId` belongs to (its user message is
   * stored before its tools are built). Their bodies stay in that session's history (never
   * compacted away), so their allowed-tools keep narrowing the session's later tasks.
   */
  activatedEarlierInSession(taskId: string): string[] {
    const row: unknown = this.database
      .prepare("SELECT session_id FROM messages WHERE task_id = ? ORDER BY id DESC LIMIT 1")
      .get(taskId);
    const session = z.object({ session_id: z.string() }).safeParse(row);
    if (!session.success) return [];
    const rows: unknown[] = this.database
      .prepare(
        `SELECT DISTINCT u.skill FROM skill_uses u WHERE u.task_id <> ?
           AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = ? AND m.task_id = u.task_id)`,
      )
      .all(taskId, session.data.session_id);
    return rows.map((skillRow) => z.object({ skill: z.string() }).parse(skillRow).skill);
  }

  /** After a task ends: every skill it used gets the task's outcome. */
  recordOutcome(taskId: string, outcome: string): string[] {
    const rows: unknown[] = this.database
      .prepare("SELECT skill FROM skill_uses WHERE task_id = ?")
      .all(taskId);
    this.database.prepare("UPDATE skill_uses SET outcome = ? WHERE task_id = ?").run(outcome, taskId);
    return rows.map((row) => z.object({ skill: z.string() }).parse(row).skill);
  }

  usesOf(skill: string, limit = 20): SkillUse[] {
    const rows: unknown[] = this.database
      .prepare(
        "SELECT skill, task_id, used_at, outcome FROM skill_uses WHERE skill = ? ORDER BY id DESC LIMIT ?",
      )
      .all(skill, limit);
    return rows.map((row) => useRow.parse(row));
  }

  record(skill: string): SkillRecord {
    const counts = z
      .object({ uses: z.number(), completed: z.number().nullable(), failed: z.number().nullable() })
      .parse(
        this.database
          .prepare(
            `SELECT COUNT(*) AS uses,
                    SUM(CASE WHEN outcome IN ('completed','responded') THEN 1 ELSE 0 END) AS completed,
                    SUM(CASE WHEN outcome IN ('failed','cancelled','paused') THEN 1 ELSE 0 END) AS failed
               FROM skill_uses WHERE skill = ?`,
          )
          .get(skill),
      );
    const recent = this.usesOf(skill, 50)
      .filter((use) => use.outcome !== null)
      .slice(0, 5)
      .map((use) => use.outcome as string);
    const recentFailures = recent.filter((outcome) => failingOutcomes.has(outcome)).length;
    return {
      uses: counts.uses,
      completed: counts.completed ?? 0,
      failed: counts.failed ?? 0,
      recent,
      flagged: recentFailures >= 3,
    };
  }

  /** Appends a version of a skill Mercury wrote; `content` null records a removal. */
  addVersion(name: string, content: string | null, reason: string): number {
    const latest = this.latestVersion(name);
    const version = (latest?.version ?? 0) + 1;
    this.database
      .prepare(
        "INSERT INTO skill_versions (name, version, content, reason, created_at) VALUES (?, ?, ?, ?, ?)",
      )
      .run(name, version, content, reason, this.now());
    return version;
  }

  latestVersion(name: string): SkillVersion | null {
    const row: unknown = this.database
      .prepare(
        "SELECT name, version, content, reason, created_at FROM skill_versions WHERE name = ? ORDER BY version DESC LIMIT 1",
      )
      .get(name);
    return row === undefined ? null : versionRow.parse(row);
  }

  versions(name: string): SkillVersion[] {
    const rows: unknown[] = this.database
      .prepare(
        "SELECT name, version, content, reason, created_at FROM skill_versions WHERE name = ? ORDER BY version",
      )
      .all(name);
    return rows.map((row) => versionRow.parse(row));
  }
}
