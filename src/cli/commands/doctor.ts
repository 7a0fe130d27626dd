import type { Command } from "commander";

export function registerDoctorCommand(program: Command): void {
  program
    .command("doctor")
    .description("diagnose the installation (config, database, keys, providers, daemon, service, Telegram)")
    .option("--json", "print one JSON document")
    .option("--offline", "skip the network checks (providers, Telegram)")
    .option(
      "--fix",
      "apply the safe fixes (file modes, missing soul files, a stale socket), then check again",
    )
    .action(async (options: { json?: boolean; offline?: boolean; fix?: boolean }) => {
      const { repairAndRecheck, runChecks } = await import("./doctor-action.js");
      const offline = Boolean(options.offline);
      const { applied, checks } = options.fix
        ? await repairAndRecheck(offline)
        : { applied: [], checks: await runChecks(offline) };
      const failed = checks.some((check) => check.status === "fail");
      if (options.json) {
        const shown = checks.map(({ repair, ...check }) => ({ ...check, fixable: repair !== undefined }));
        process.stdout.write(
          `${JSON.stringify({ ok: !failed, checks: shown, ...(options.fix ? { applied } : {}) })}\n`,
        );
      } else {
        for (const line of applied) process.stdout.write(`fixed: ${line}\n`);
        for (const check of checks) {
          const glyph = check.status === "ok" ? "✓" : check.status === "warn" ? "!" : "✗";
          process.stdout.write(`${glyph} ${check.name}: ${check.detail}\n`);
          if (check.fix)
            process.stdout.write(
              `    fix: ${check.fix}${check.repair ? " (`mercury doctor --fix` does this)" : ""}\n`,
            );
        }
      }
      process.exitCode = failed ? 1 : 0;
    });
}
