import { join } from "node:path";
import { createBackup, listBackups } from "./backup.js";
import type { SqliteDatabase } from "./database.js";

export const backupIntervalMs = 24 * 60 * 60 * 1000;

export function backupsDirectory(home: string): string {
  return join(home, "backups");
}

/** How many backups to keep: MERCURY_BACKUP_KEEP (1–365), default 7. */
export function backupKeep(env: NodeJS.ProcessEnv): number {
  const raw = env.MERCURY_BACKUP_KEEP;
  if (raw === undefined || raw === "") return 7;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 365)
    throw new Error(`MERCURY_BACKUP_KEEP "${raw}": expected a whole number from 1 to 365`);
  return value;
}

/**
 * The daemon's daily backup: one now when the newest is older than a day (or there is none), then a
 * check every hour. Failures are reported through `onError`, never dropped.
 */
export function scheduleDailyBackup(
  database: SqliteDatabase,
  home: string,
  keep: number,
  onDone: (path: string) => void,
  onError: (error: unknown) => void,
): () => void {
  const directory = backupsDirectory(home);
  let running = false;
  const check = () => {
    if (running) return;
    const newest = listBackups(directory)[0];
    if (newest && Date.now() - Date.parse(newest.takenAt) < backupIntervalMs) return;
    running = true;
    createBackup(database, directory, keep)
      .then((entry) => onDone(entry.path), onError)
      .finally(() => {
        running = false;
      });
  };
  check();
  const timer = setInterval(check, 60 * 60 * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
