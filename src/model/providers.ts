import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { apiKeyVariables, type ProviderEntry } from "../config/schema.js";
import type { LanguageModel } from "./types.js";

export interface ProviderHandle {
  label: string;
  entry: ProviderEntry;
  /** null when the provider cannot be built; `problem` says why and how to fix it. */
  model: LanguageModel | null;
  problem: string | null;
}

/** Builds a provider's model. A custom factory replaces this in tests (the scripted model). */
export type ModelFactory = (entry: ProviderEntry, apiKey: string | undefined) => LanguageModel;

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

export const defaultModelFactory: ModelFactory = (entry, apiKey) => {
  switch (entry.name) {
    case "openai":
      return createOpenAI({ apiKey, ...(entry.baseUrl ? { baseURL: entry.baseUrl } : {}) })(entry.model);
    case "anthropic":
      return createAnthropic({ apiKey, ...(entry.baseUrl ? { baseURL: entry.baseUrl } : {}) })(entry.model);
    case "deepseek":
    case "openrouter":
    case "ollama":
    case "openai-compatible":
      return createOpenAICompatible({
        name: entry.name,
        baseURL: entry.baseUrl ?? "",
        ...(apiKey ? { apiKey } : {}),
        includeUsage: true,
      }).chatModel(entry.model);
  }
};

export function buildProviders(
  chain: ProviderEntry[],
  env: NodeJS.ProcessEnv,
  factory: ModelFactory,
): ProviderHandle[] {
  return chain.map((entry, index) => {
    const apiKey = apiKeyFor(entry, index === 0, env);
    const label = entry.label ?? entry.name;
    const problem = keyProblem(entry, apiKey);
    return { label, entry, model: problem ? null : factory(entry, apiKey), problem };
  });
}
