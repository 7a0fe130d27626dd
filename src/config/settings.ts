import { type ConfigFlags, resolveConfig } from "./load.js";
import { homePaths, mercuryHome } from "./paths.js";
import { environmentWithDotEnv, Redactor } from "./secrets.js";

/** Config and environment only (no database): for commands that must not create state. */
export function loadSettings(options: { env?: NodeJS.ProcessEnv; flags?: ConfigFlags } = {}) {
  const baseEnv = options.env ?? process.env;
  const home = mercuryHome(baseEnv);
  const paths = homePaths(home);
  const env = environmentWithDotEnv(paths.env, baseEnv);
  const config = resolveConfig(home, env, options.flags);
  return { home, paths, env, config, redactor: new Redactor(env) };
}
