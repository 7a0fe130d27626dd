import type { Command } from "commander";
import { ConfigError } from "../../config/errors.js";

export function registerUsageCommand(program: Command): void {
  program
    .command("usage")
    .description("tokens and cost per day, provider and session (failed attempts included)")
    .option("--json", "print one JSON document")
    .option("--days <n>", "how many days back, today included", "7")
    .action(async (options: { json?: boolean; days: string }) => {
      const days = Number(options.days);
      if (!/^\d+$/.test(options.days) || days < 1 || days > 3650) {
        throw new ConfigError(`--days "${options.days}": expected a whole number from 1 to 3650.`);
      }
      const [{ loadSettings }, { openDatabase }, { UsageStore }] = await Promise.all([
        import("../../config/settings.js"),
        import("../../storage/database.js"),
        import("../../storage/usage.js"),
      ]);
      const { paths, config } = loadSettings();
      const database = openDatabase(paths.database);
      try {
        const store = new UsageStore(database);
        const rows = store.summary(days);
        const today = store.today();
        if (options.json) {
          process.stdout.write(
            `${JSON.stringify({ today: { ...today, dailyTokenLimit: config.budget.dailyTokens, dailyUsdLimit: config.budget.dailyUsd }, rows })}\n`,
          );
          return;
        }
        const limit = config.budget.dailyTokens === null ? "no limit" : `limit ${config.budget.dailyTokens}`;
        process.stdout.write(`today: ${today.tokens} tokens (${limit}), $${today.costUsd.toFixed(4)}\n`);
        for (const row of rows) {
          process.stdout.write(
            `${row.day}  ${row.provider.padEnd(18)} ${String(row.inputTokens).padStart(9)} in ${String(row.outputTokens).padStart(9)} out  $${row.costUsd.toFixed(4)}  ${row.attempts} calls (${row.failedAttempts} failed)  session ${row.sessionId ?? "-"}\n`,
          );
        }
      } finally {
        database.close();
      }
    });
}
