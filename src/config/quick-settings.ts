import { existsSync, readFileSync } from "node:fs";
import { homePaths, mercuryHome } from "./paths.js";
import type { ConfigFlags } from "./resolve.js";
import { resolveConfigFile } from "./resolve.js";
import type { ConfigFile } from "./schema.js";
import { environmentWithDotEnv, Redactor } from "./secrets.js";
import type { loadSettings } from "./settings.js";
import { readSnapshot } from "./snapshot.js";

export type Settings = ReturnType<typeof loadSettings>;

/**
 * The same settings as `loadSettings`, for commands that run often and must start fast (`mercury
 * memory …`): when config.yaml has not changed since it was last validated, its validated snapshot
 * is used and neither the YAML parser nor the validator (zod) is loaded. Any other case — a new or
 * edited file, another build — goes through `loadSettings`, with its errors.
 */
export async function loadSettingsQuickly(
  options: { env?: NodeJS.ProcessEnv; flags?: ConfigFlags } = {},
): Promise<Settings> {
  const baseEnv = options.env ?? process.env;
  const home = mercuryHome(baseEnv);
  const paths = homePaths(home);
  const file = validatedConfigFile(paths.config);
  if (file === null) return (await import("./settings.js")).loadSettings(options);
  const env = environmentWithDotEnv(paths.env, baseEnv);
  const config = resolveConfigFile(home, file, env, options.flags);
  return { home, paths, env, config, redactor: new Redactor(env) };
}

/** No file: nothing to validate. A file: its snapshot, or null when it must be validated. */
function validatedConfigFile(path: string): ConfigFile | null {
  if (!existsSync(path)) return {};
  const validated = readSnapshot(path, readFileSync(path, "utf8"));
  return validated === null ? null : (validated as ConfigFile);
}
