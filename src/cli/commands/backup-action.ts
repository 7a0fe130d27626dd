import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { loadSettings } from "../../config/settings.js";
import { readLiveLock } from "../../daemon/lock.js";
import { purgeForgottenMemories } from "../../memory/restore-tombstones.js";
import { createBackup, listBackups, restoreBackup, setTombstoneReapplier } from "../../storage/backup.js";
import { backupKeep, backupsDirectory } from "../../storage/backup-schedule.js";
import { openDatabase } from "../../storage/database.js";
import { exitCodes } from "../exit-codes.js";

export async function backupCreate(options: { json?: boolean }): Promise<number> {
  const { paths } = loadSettings();
  const database = openDatabase(paths.database);
  try {
    const entry = await createBackup(database, backupsDirectory(paths.home), backupKeep(process.env));
    process.stdout.write(
      options.json ? `${JSON.stringify(entry)}\n` : `backup written: ${entry.path} (${entry.bytes} bytes)\n`,
    );
    return exitCodes.success;
  } finally {
    database.close();
  }
}

export function backupList(options: { json?: boolean }): number {
  const { paths } = loadSettings();
  const entries = listBackups(backupsDirectory(paths.home));
  if (options.json) process.stdout.write(`${JSON.stringify({ backups: entries })}\n`);
  else if (entries.length === 0) process.stdout.write("no backups yet (`mercury backup create` takes one)\n");
  else
    for (const entry of entries)
      process.stdout.write(`${entry.name}  ${entry.takenAt}  ${entry.bytes} bytes\n`);
  return exitCodes.success;
}

export function backupRestore(file: string, options: { json?: boolean }): number {
  const { paths } = loadSettings();
  if (readLiveLock(paths.lock)) {
    process.stderr.write("mercury: the daemon is running; stop it first (`mercury stop`), then restore\n");
    return exitCodes.usage;
  }
  const byName = join(backupsDirectory(paths.home), file);
  const path = existsSync(byName) ? byName : isAbsolute(file) ? file : resolve(file);
  if (!existsSync(path)) {
    process.stderr.write(`mercury: no backup ${file}; see \`mercury backup list\`\n`);
    return exitCodes.usage;
  }
  setTombstoneReapplier(purgeForgottenMemories);
  const result = restoreBackup(paths.database, path, openDatabase);
  if (options.json) process.stdout.write(`${JSON.stringify({ restored: path, ...result })}\n`);
  else
    process.stdout.write(
      `restored ${path}${result.keptAs ? `; the previous database is kept as ${result.keptAs}` : ""}; ` +
        `${result.tombstonesReapplied} forgotten memor${result.tombstonesReapplied === 1 ? "y" : "ies"} re-applied\n`,
    );
  return exitCodes.success;
}
