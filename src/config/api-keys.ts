import { apiKeyVariables } from "./provider-defaults.js";
import type { ProviderEntry } from "./schema.js";

/**
 * Which environment variable holds each provider's key, and whether one is set. Kept out of
 * `model/` so the first-run guard can answer without loading the AI SDK.
 */
export function apiKeyFor(
  entry: ProviderEntry,
  isPrimary: boolean,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (isPrimary && env.MERCURY_API_KEY) return env.MERCURY_API_KEY;
  for (const name of apiKeyVariables[entry.name]) {
    const value = env[name];
    if (value) return value;
  }
  if (entry.name === "openai-compatible" && env.MERCURY_API_KEY) return env.MERCURY_API_KEY;
  return undefined;
}

export function keyProblem(entry: ProviderEntry, apiKey: string | undefined): string | null {
  if (apiKey) return null;
  const variables = apiKeyVariables[entry.name];
  if (variables.length === 0) return null;
  return `no API key: set ${variables.join(" or ")} (or MERCURY_API_KEY) in the environment or run \`mercury setup\``;
}

/** The variable a user should fix when a provider rejects its key. */
export function keyVariableFor(entry: ProviderEntry, isPrimary: boolean, env: NodeJS.ProcessEnv): string {
  if (isPrimary && env.MERCURY_API_KEY) return "MERCURY_API_KEY";
  const named = apiKeyVariables[entry.name].find((name) => env[name]);
  return named ?? apiKeyVariables[entry.name][0] ?? "MERCURY_API_KEY";
}

/**
 * Null when at least one provider in the chain can be tried; otherwise each provider's problem,
 * so `chat` and `run` stop before opening anything and point at `mercury setup`.
 */
export function usableProviderProblem(chain: ProviderEntry[], env: NodeJS.ProcessEnv): string | null {
  const problems: string[] = [];
  for (const [index, entry] of chain.entries()) {
    if (!keyProblem(entry, apiKeyFor(entry, index === 0, env))) return null;
    const variables = [...apiKeyVariables[entry.name], "MERCURY_API_KEY"].join(" or ");
    problems.push(`${entry.label ?? entry.name} has no API key (${variables} is not set)`);
  }
  return problems.join("; ");
}
