import type { Command } from "commander";

export function registerDoctorCommand(program: Command): void {
  program
    .command("doctor")
    .description("diagnose the installation, with the fix for each problem")
    .option("--json", "print one JSON document")
    .option("--offline", "skip the provider reachability checks")
    .action(async (options: { json?: boolean; offline?: boolean }) => {
      const { runChecks } = await import("./doctor-action.js");
      const checks = await runChecks(Boolean(options.offline));
      const failed = checks.some((check) => check.status === "fail");
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ ok: !failed, checks })}\n`);
      } else {
        for (const check of checks) {
          const glyph = check.status === "ok" ? "✓" : check.status === "warn" ? "!" : "✗";
          process.stdout.write(`${glyph} ${check.name}: ${check.detail}\n`);
          if (check.fix) process.stdout.write(`    fix: ${check.fix}\n`);
        }
      }
      process.exitCode = failed ? 1 : 0;
    });
}
