import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import Database from "better-sqlite3";
import type { SqliteDatabase } from "./database.js";

export interface BackupEntry {
  path: string;
  name: string;
  bytes: number;
  /** When the backup was taken (from its name). */
  takenAt: string;
}

const namePattern = /^mercury-(\d{8}T\d{6}\d{3}Z)\.db$/;

function stamp(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, "");
}

function takenAtOf(name: string): string | null {
  const match = namePattern.exec(name);
  if (!match?.[1]) return null;
  const s = match[1];
  return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}.${s.slice(15, 18)}Z`;
}

export function listBackups(directory: string): BackupEntry[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .map((name) => ({ name, takenAt: takenAtOf(name) }))
    .filter((entry): entry is { name: string; takenAt: string } => entry.takenAt !== null)
    .map(({ name, takenAt }) => ({
      name,
      takenAt,
      path: join(directory, name),
      bytes: statSync(join(directory, name)).size,
    }))
    .sort((a, b) => b.takenAt.localeCompare(a.takenAt));
}

/**
 * An online backup with SQLite's backup API (consistent even while the daemon writes), checked with
 * `PRAGMA integrity_check` before it counts; then only the newest `keep` backups are kept.
 */
export async function createBackup(
  database: SqliteDatabase,
  directory: string,
  keep: number,
  now: Date = new Date(),
): Promise<BackupEntry> {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const name = `mercury-${stamp(now)}.db`;
  const path = join(directory, name);
  const partial = `${path}.partial`;
  // All pages in one step: SQLite restarts a backup whenever another connection writes between
  // steps, and with the daemon writing every few milliseconds the default 100-page steps never
  // finished (seen as a `backup create` that hung in CI). One step holds a read snapshot throughout.
  await database.backup(partial, { progress: () => 0x7fffffff });
  const problem = integrityProblem(partial);
  if (problem !== null) {
    rmSync(partial, { force: true });
    throw new Error(`the backup failed its integrity check (${problem}); the previous backups are kept`);
  }
  renameSync(partial, path);
  for (const old of listBackups(directory).slice(Math.max(1, keep))) rmSync(old.path, { force: true });
  return { path, name, bytes: statSync(path).size, takenAt: now.toISOString() };
}

/** Null when the file passes `PRAGMA integrity_check` (or quick_check), else the first problem. */
export function integrityProblem(path: string, quick = false): string | null {
  let database: Database.Database | null = null;
  try {
    database = new Database(path, { readonly: true, fileMustExist: true });
    const rows = database.pragma(quick ? "quick_check" : "integrity_check") as Record<string, unknown>[];
    const first = rows[0] ? String(Object.values(rows[0])[0]) : "no result";
    return first === "ok" ? null : first;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    database?.close();
  }
}

export interface Tombstone {
  memory_id: number;
  user_key: string;
  deleted_at: string;
}

/**
 * Re-applies forgets to a restored database: a backup taken before the user forgot something must
 * not bring it back. The default deletes the memory row and its versions and records the tombstone;
 * the memory module may install a fuller purge (search index, episodes) with setTombstoneReapplier.
 */
export type TombstoneReapplier = (
  restored: SqliteDatabase,
  tombstones: readonly Tombstone[],
  /** The database that was current before the restore (its redactions are re-applied too). */
  previousPath: string | null,
) => void;

let reapplier: TombstoneReapplier = (restored, tombstones) => {
  const apply = restored.transaction(() => {
    for (const tombstone of tombstones) {
      restored.prepare("DELETE FROM memory_versions WHERE memory_id = ?").run(tombstone.memory_id);
      restored.prepare("DELETE FROM memories WHERE id = ?").run(tombstone.memory_id);
      restored
        .prepare(
          "INSERT OR REPLACE INTO memory_tombstones (memory_id, user_key, deleted_at) VALUES (?, ?, ?)",
        )
        .run(tombstone.memory_id, tombstone.user_key, tombstone.deleted_at);
    }
  });
  apply();
};

export function setTombstoneReapplier(next: TombstoneReapplier): void {
  reapplier = next;
}

/**
 * Replaces the database with a backup (the daemon must be stopped). The current file is kept next
 * to it as `mercury.db.before-restore-<time>`; tombstones it holds that the backup lacks are
 * re-applied to the restored copy. Returns the path of the kept file.
 */
export function restoreBackup(
  databasePath: string,
  backupPath: string,
  open: (path: string) => SqliteDatabase,
  now: Date = new Date(),
): { keptAs: string | null; tombstonesReapplied: number } {
  const problem = integrityProblem(backupPath);
  if (problem !== null)
    throw new Error(`${basename(backupPath)} is not a sound database (${problem}); pick another backup`);
  let tombstones: Tombstone[] = [];
  if (existsSync(databasePath)) {
    try {
      const current = new Database(databasePath, { readonly: true, fileMustExist: true });
      try {
        tombstones = current
          .prepare("SELECT memory_id, user_key, deleted_at FROM memory_tombstones")
          .all() as Tombstone[];
      } finally {
        current.close();
      }
    } catch (error) {
      // A damaged current database may not yield its tombstones: say so, the restore still helps.
      process.emitWarning(`could not read forgotten memories from the current database: ${String(error)}`);
    }
  }
  let keptAs: string | null = null;
  if (existsSync(databasePath)) {
    keptAs = `${databasePath}.before-restore-${stamp(now)}`;
    renameSync(databasePath, keptAs);
  }
  for (const suffix of ["-wal", "-shm"]) rmSync(`${databasePath}${suffix}`, { force: true });
  copyFileSync(backupPath, databasePath);
  const restored = open(databasePath);
  try {
    const known = new Set(
      (restored.prepare("SELECT memory_id FROM memory_tombstones").all() as { memory_id: number }[]).map(
        (row) => row.memory_id,
      ),
    );
    const missing = tombstones.filter((tombstone) => !known.has(tombstone.memory_id));
    if (missing.length > 0) reapplier(restored, missing, keptAs);
    return { keptAs, tombstonesReapplied: missing.length };
  } finally {
    restored.close();
  }
}
