import type { Command } from "commander";

export function registerBackupCommands(program: Command): void {
  const backup = program
    .command("backup")
    .description("copies of mercury.db (the daemon takes one a day; MERCURY_BACKUP_KEEP, default 7)");
  backup
    .command("create")
    .description("take an online backup now (safe while the daemon runs)")
    .option("--json", "print one JSON document")
    .action(async (options: { json?: boolean }) => {
      const { backupCreate } = await import("./backup-action.js");
      process.exitCode = await backupCreate(options);
    });
  backup
    .command("list")
    .description("backups, newest first")
    .option("--json", "print one JSON document")
    .action(async (options: { json?: boolean }) => {
      const { backupList } = await import("./backup-action.js");
      process.exitCode = backupList(options);
    });
  backup
    .command("restore")
    .description(
      "replace mercury.db with a backup (stop the daemon first); forgotten memories stay forgotten",
    )
    .argument("<file>", "a backup's name (from `mercury backup list`) or path")
    .option("--json", "print one JSON document")
    .action(async (file: string, options: { json?: boolean }) => {
      const { backupRestore } = await import("./backup-action.js");
      process.exitCode = backupRestore(file, options);
    });
}
