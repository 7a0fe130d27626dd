import { usableProviderProblem } from "../config/api-keys.js";
import { ConfigError } from "../config/errors.js";
import type { ConfigFlags } from "../config/load.js";

/**
 * First-run guard for `chat` and `run`: before anything is opened, check that some provider can be
 * tried at all, and otherwise stop with exit 2 and point at `mercury setup`.
 */
export async function assertUsableProvider(flags: ConfigFlags): Promise<void> {
  const { loadSettings } = await import("../config/settings.js");
  const { config, env } = loadSettings({ flags });
  const problem = usableProviderProblem(config.chain, env);
  if (problem) {
    throw new ConfigError(
      `no model provider is set up: ${problem}.\nRun \`mercury setup\` to choose a provider and store its key, or set MERCURY_PROVIDER and MERCURY_API_KEY.`,
    );
  }
}
