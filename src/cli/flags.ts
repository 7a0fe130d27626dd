import type { ConfigFlags } from "../config/load.js";

/** Options every command accepts (declared on the root program from GLOBAL_OPTIONS). */
export interface GlobalFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

export function configFlagsFrom(flags: GlobalFlags): ConfigFlags {
  return {
    ...(flags.provider ? { provider: flags.provider } : {}),
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
  };
}

/** The root program's options, in help order: declared to commander and read by run-fast.ts. */
export const GLOBAL_OPTIONS: readonly { flags: string; description: string }[] = [
  {
    flags: "--provider <name>",
    description: "provider for this run (openai, anthropic, deepseek, openrouter, ollama, openai-compatible)",
  },
  { flags: "--model <id>", description: "model for this run" },
  { flags: "--base-url <url>", description: "base URL of the provider's API for this run" },
];
