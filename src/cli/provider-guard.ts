import { usableProviderProblem } from "../config/api-keys.js";
import { ConfigError } from "../config/errors.js";
import type { ConfigFlags } from "../config/load.js";
import type { loadSettings } from "../config/settings.js";

type Settings = ReturnType<typeof loadSettings>;

/**
 * First-run guard for `chat` and `run`: before anything is opened, check that some provider can be
 * tried at all, and otherwise stop with exit 2 and point at `mercury setup`.
 */
export async function assertUsableProvider(flags: ConfigFlags): Promise<Settings> {
  // From the validated snapshot when config.yaml is unchanged: the file's zod schema and the YAML
  // parser load only when the file must be validated (config/quick-settings.ts).
  const { loadSettingsQuickly } = await import("../config/quick-settings.js");
  const settings = await loadSettingsQuickly({ flags });
  const { config, env } = settings;
  const problem = usableProviderProblem(config.chain, env);
  if (problem) {
    throw new ConfigError(
      `no model provider is set up: ${problem}.\nRun \`mercury setup\` to choose a provider and store its key, or set MERCURY_PROVIDER and MERCURY_API_KEY.`,
    );
  }
  // The caller opens the application on the same settings instead of reading them again.
  return settings;
}
