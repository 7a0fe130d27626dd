import { accessSync, chmodSync, constants, existsSync, mkdirSync } from "node:fs";
import { apiKeyFor, keyProblem } from "../../config/api-keys.js";
import { dotEnvModeProblem } from "../../config/secrets.js";
import type { Check, DoctorCheck } from "./types.js";

/** Runs before the config is read, so it takes no context. */
export function nodeCheck(): Check {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const nodeOk = major > 20 || (major === 20 && minor >= 19);
  return {
    name: "node",
    status: nodeOk ? "ok" : "fail",
    detail: `v${process.versions.node}`,
    ...(nodeOk ? {} : { fix: "install Node.js 20.19 or newer (https://nodejs.org or your package manager)" }),
  };
}

export const homeCheck: DoctorCheck = ({ settings: { paths } }) => {
  try {
    mkdirSync(paths.home, { recursive: true });
    accessSync(paths.home, constants.W_OK);
    return [{ name: "home", status: "ok", detail: paths.home }];
  } catch (error) {
    return [
      {
        name: "home",
        status: "fail",
        detail: `${paths.home}: ${String(error)}`,
        fix: `make ${paths.home} writable or set MERCURY_HOME`,
      },
    ];
  }
};

export const databaseCheck: DoctorCheck = async ({ settings: { paths } }) => {
  const { latestSchemaVersion, openDatabase, schemaVersion } = await import("../../storage/database.js");
  try {
    const database = openDatabase(paths.database);
    try {
      const version = schemaVersion(database);
      const integrity = database.pragma("quick_check", { simple: true });
      if (integrity !== "ok") {
        return [
          {
            name: "database",
            status: "fail",
            detail: `${paths.database}: SQLite quick_check reports ${String(integrity)}`,
            fix: `stop Mercury, copy ${paths.database} aside, and restore a backup (or run \`sqlite3 ${paths.database} .recover\`)`,
          },
        ];
      }
      return [
        {
          name: "database",
          status: "ok",
          detail: `${paths.database} (schema ${version} of ${latestSchemaVersion()})`,
        },
      ];
    } finally {
      database.close();
    }
  } catch (error) {
    return [
      {
        name: "database",
        status: "fail",
        detail: error instanceof Error ? error.message : String(error),
        fix: "move the database aside (it is a plain SQLite file) or upgrade Mercury",
      },
    ];
  }
};

export const secretsCheck: DoctorCheck = ({ settings: { paths } }) => {
  const problem = dotEnvModeProblem(paths.env);
  if (!problem) {
    return [
      {
        name: "secrets",
        status: "ok",
        detail: existsSync(paths.env) ? `${paths.env} (0600)` : "no .env (keys from the environment)",
      },
    ];
  }
  return [
    {
      name: "secrets",
      status: "fail",
      // The fix has its own line below the check: the detail stops before the problem's "Fix: …".
      detail: problem.replace(/\. Fix: .*$/, ""),
      fix: `chmod 600 ${paths.env}`,
      repair: () => {
        chmodSync(paths.env, 0o600);
        return `chmod 600 ${paths.env}`;
      },
    },
  ];
};

export const soulCheck: DoctorCheck = async ({ settings: { paths } }) => {
  const { soulFileNames } = await import("../../soul/templates.js");
  const missing = soulFileNames.filter((name) => !existsSync(`${paths.soul}/${name}`));
  if (missing.length === 0) return [{ name: "soul", status: "ok", detail: paths.soul }];
  return [
    {
      name: "soul",
      status: "warn",
      detail: `missing ${missing.join(", ")}`,
      fix: "run `mercury soul show` to create them from templates",
      repair: async () => {
        const { ensureSoulFiles } = await import("../../soul/soul.js");
        const created = ensureSoulFiles(paths.soul);
        return `created ${created.join(", ") || "nothing"} in ${paths.soul} from templates`;
      },
    },
  ];
};

export const providersCheck: DoctorCheck = async ({ settings, offline }) => {
  const checks: Check[] = [];
  for (const [index, entry] of settings.config.chain.entries()) {
    const label = `provider ${entry.label ?? entry.name} (${entry.model})`;
    const apiKey = apiKeyFor(entry, index === 0, settings.env);
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
    const { probeProvider } = await import("../../model/probe.js");
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
                : / answered 40[13]\b/.test(probe.detail)
                  ? "the API key was rejected: put the right key in the environment or $MERCURY_HOME/.env (`mercury setup`)"
                  : "check the key and base URL (`mercury setup`), and that this machine can reach the provider",
          },
    );
  }
  return checks;
};
