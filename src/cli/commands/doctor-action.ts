import { ConfigError } from "../../config/errors.js";
import { loadSettings } from "../../config/settings.js";
import { daemonCheck, serviceCheck, telegramCheck } from "../doctor/checks-always-on.js";
import { mcpCheck, skillsCheck } from "../doctor/checks-extensions.js";
import {
  databaseCheck,
  homeCheck,
  nodeCheck,
  providersCheck,
  secretsCheck,
  soulCheck,
} from "../doctor/checks-install.js";
import { sandboxCheck } from "../doctor/checks-sandbox.js";
import { scheduleCheck } from "../doctor/checks-schedule.js";
import { vectorSearchCheck } from "../doctor/checks-search.js";
import type { Check, DoctorCheck } from "../doctor/types.js";

export type { Check };

/** Every area doctor looks at, in the order shown. Adding one is one line. */
export const doctorChecks: DoctorCheck[] = [
  homeCheck,
  databaseCheck,
  vectorSearchCheck,
  sandboxCheck,
  secretsCheck,
  soulCheck,
  skillsCheck,
  mcpCheck,
  providersCheck,
  daemonCheck,
  scheduleCheck,
  serviceCheck,
  telegramCheck,
];

export async function runChecks(offline: boolean): Promise<Check[]> {
  const checks: Check[] = [nodeCheck()];
  let settings: ReturnType<typeof loadSettings>;
  try {
    settings = loadSettings();
    const { existsSync } = await import("node:fs");
    checks.push({
      name: "config",
      status: "ok",
      detail: existsSync(settings.paths.config) ? settings.paths.config : "no config.yaml (defaults)",
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    checks.push({
      name: "config",
      status: "fail",
      detail: error.message,
      fix: "fix the named key, or run `mercury setup`",
    });
    return checks;
  }
  for (const check of doctorChecks) {
    const found = await check({ settings, offline });
    checks.push(...found);
    // Without a writable home nothing else can be checked meaningfully.
    if (check === homeCheck && found.some((entry) => entry.status === "fail")) break;
  }
  return checks;
}

/** `doctor --fix`: applies each safe repair once, then checks again so the report shows the result. */
export async function repairAndRecheck(offline: boolean): Promise<{ applied: string[]; checks: Check[] }> {
  const applied: string[] = [];
  for (const check of await runChecks(offline)) {
    if (!check.repair) continue;
    try {
      applied.push(await check.repair());
    } catch (error) {
      applied.push(
        `${check.name}: the repair failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return { applied, checks: await runChecks(offline) };
}
