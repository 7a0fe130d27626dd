// The providers Mercury knows and their defaults. Plain data, apart from the zod schema (schema.ts),
// so resolving a validated config never loads zod.

export const providerNames = [
  "openai",
  "anthropic",
  "deepseek",
  "openrouter",
  "ollama",
  "openai-compatible",
] as const;
export type ProviderName = (typeof providerNames)[number];

export const defaultModels: Record<ProviderName, string> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
  deepseek: "deepseek-chat",
  openrouter: "openai/gpt-4o-mini",
  ollama: "llama3.1",
  "openai-compatible": "default",
};

export const defaultBaseUrls: Partial<Record<ProviderName, string>> = {
  deepseek: "https://api.deepseek.com/v1",
  openrouter: "https://openrouter.ai/api/v1",
  ollama: "http://127.0.0.1:11434/v1",
};

/** The environment variable that holds each provider's key. */
export const apiKeyVariables: Record<ProviderName, string[]> = {
  openai: ["OPENAI_API_KEY"],
  anthropic: ["ANTHROPIC_API_KEY"],
  deepseek: ["DEEPSEEK_API_KEY"],
  openrouter: ["OPENROUTER_API_KEY"],
  ollama: [],
  "openai-compatible": [],
};
