import { accessSync, constants, existsSync, mkdirSync } from "node:fs";
import { ConfigError } from "../../config/errors.js";
import { dotEnvModeProblem } from "../../config/secrets.js";
import { loadSettings } from "../../config/settings.js";
import { probeProvider } from "../../model/probe.js";
import { apiKeyFor, keyProblem } from "../../model/providers.js";
import { soulFileNames } from "../../soul/templates.js";
import { latestSchemaVersion, openDatabase, schemaVersion } from "../../storage/database.js";

export interface Check {
  name: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix?: string;
}

export async function runChecks(offline: boolean): Promise<Check[]> {
  const checks: Check[] = [];
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const nodeOk = major > 20 || (major === 20 && minor >= 19);
  checks.push({
    name: "node",
    status: nodeOk ? "ok" : "fail",
    detail: `v${process.versions.node}`,
    ...(nodeOk ? {} : { fix: "install Node.js 20.19 or newer (https://nodejs.org or your package manager)" }),
  });

  let settings: ReturnType<typeof loadSettings>;
  try {
    settings = loadSettings();
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
  const { paths, config, env } = settings;

  try {
    mkdirSync(paths.home, { recursive: true });
    accessSync(paths.home, constants.W_OK);
    checks.push({ name: "home", status: "ok", detail: paths.home });
  } catch (error) {
    checks.push({
      name: "home",
      status: "fail",
      detail: `${paths.home}: ${String(error)}`,
      fix: `make ${paths.home} writable or set MERCURY_HOME`,
    });
    return checks;
  }

  try {
    const database = openDatabase(paths.database);
    const version = schemaVersion(database);
    database.close();
    checks.push({
      name: "database",
      status: "ok",
      detail: `${paths.database} (schema ${version} of ${latestSchemaVersion()})`,
    });
  } catch (error) {
    checks.push({
      name: "database",
      status: "fail",
      detail: error instanceof Error ? error.message : String(error),
      fix: "move the database aside (it is a plain SQLite file) or upgrade Mercury",
    });
  }

  const envProblem = dotEnvModeProblem(paths.env);
  checks.push(
    envProblem
      ? { name: "secrets", status: "fail", detail: envProblem, fix: `chmod 600 ${paths.env}` }
      : {
          name: "secrets",
          status: "ok",
          detail: existsSync(paths.env) ? `${paths.env} (0600)` : "no .env (keys from the environment)",
        },
  );

  const missingSoul = soulFileNames.filter((name) => !existsSync(`${paths.soul}/${name}`));
  checks.push(
    missingSoul.length === 0
      ? { name: "soul", status: "ok", detail: paths.soul }
      : {
          name: "soul",
          status: "warn",
          detail: `missing ${missingSoul.join(", ")}`,
          fix: "run `mercury soul show` to create them from templates",
        },
  );

  checks.push(await import("../../skills/doctor.js").then(({ checkSkills }) => checkSkills(paths, env)));
  if (!offline)
    checks.push(
      ...(await import("../../mcp/doctor.js").then(({ checkMcpServers }) =>
        checkMcpServers(config.mcp, env, paths.home),
      )),
    );

  for (const [index, entry] of config.chain.entries()) {
    const label = `provider ${entry.label ?? entry.name} (${entry.model})`;
    const apiKey = apiKeyFor(entry, index === 0, env);
    const problem = keyProblem(entry, apiKey);
    if (problem) {
      checks.push({
        name: label,
        status: "fail",
        detail: problem,
        fix: "run `mercury setup` or export the key",
      });
      continue;
    }
    if (offline) {
      checks.push({ name: label, status: "ok", detail: "key present (reachability not checked: --offline)" });
      continue;
    }
    const probe = await probeProvider(entry, apiKey);
    checks.push(
      probe.ok
        ? { name: label, status: "ok", detail: probe.detail }
        : {
            name: label,
            status: "fail",
            detail: settings.redactor.redact(probe.detail),
            fix:
              entry.name === "ollama"
                ? "start Ollama (`ollama serve`) and pull the model (`ollama pull <model>`)"
                : "check the key and base URL (`mercury setup`), and that this machine can reach the provider",
          },
    );
  }
  return checks;
}
