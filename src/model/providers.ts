import { apiKeyFor, keyProblem, keyVariableFor } from "../config/api-keys.js";
import type { ProviderEntry } from "../config/schema.js";

export { apiKeyFor, keyProblem };

import { lazyLanguageModel } from "./lazy-model.js";
import type { LanguageModel } from "./types.js";

export interface ProviderHandle {
  label: string;
  entry: ProviderEntry;
  /** null when the provider cannot be built; `problem` says why and how to fix it. */
  model: LanguageModel | null;
  problem: string | null;
  /** The environment variable the key came from, named in "the API key was rejected" messages. */
  keyVariable?: string;
}

/** Builds a provider's model. A custom factory replaces this in tests (the scripted model). */
export type ModelFactory = (entry: ProviderEntry, apiKey: string | undefined) => LanguageModel;

/** The real providers, each package imported on the model's first request (see lazy-model.ts). */
export const defaultModelFactory: ModelFactory = (entry, apiKey) => {
  const baseURL = entry.baseUrl ? { baseURL: entry.baseUrl } : {};
  switch (entry.name) {
    case "openai":
      return lazyLanguageModel("openai.responses", entry.model, async () => {
        const { createOpenAI } = await import("@ai-sdk/openai");
        return createOpenAI({ apiKey, ...baseURL })(entry.model);
      });
    case "anthropic":
      return lazyLanguageModel("anthropic.messages", entry.model, async () => {
        const { createAnthropic } = await import("@ai-sdk/anthropic");
        return createAnthropic({ apiKey, ...baseURL })(entry.model);
      });
    case "deepseek":
    case "openrouter":
    case "ollama":
    case "openai-compatible":
      return lazyLanguageModel(`${entry.name}.chat`, entry.model, async () => {
        const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
        return createOpenAICompatible({
          name: entry.name,
          baseURL: entry.baseUrl ?? "",
          ...(apiKey ? { apiKey } : {}),
          includeUsage: true,
        }).chatModel(entry.model);
      });
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
    return {
      label,
      entry,
      model: problem ? null : factory(entry, apiKey),
      problem,
      keyVariable: keyVariableFor(entry, index === 0, env),
    };
  });
}
