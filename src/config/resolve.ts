import { ConfigError } from "./errors.js";
import type { ResolvedMcpConfig } from "./mcp-schema.js";
import { defaultBaseUrls, defaultModels, type ProviderName, providerNames } from "./provider-defaults.js";
import type { ConfigFile, ProviderEntry, ResolvedConfig } from "./schema.js";

/**
 * The config a command runs with, from an already validated config file (load.ts reads and
 * validates it; config/quick-settings.ts takes it from the validated snapshot without loading the
 * validator). No zod here: the memory commands resolve their config on every run.
 */

/** Values given on the command line; they beat everything else. */
export interface ConfigFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

function parseProviderName(value: string, source: string): ProviderName {
  const found = providerNames.find((name) => name === value);
  if (!found) {
    throw new ConfigError(
      `${source}: unknown provider "${value}"; expected one of ${providerNames.join(", ")}.`,
    );
  }
  return found;
}

function parseIntegerEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new ConfigError(`${name}="${raw}": expected a positive whole number of milliseconds.`);
  }
  return value;
}

/**
 * Precedence: flags > environment > config file > defaults. The primary provider (first in the
 * chain) is what MERCURY_PROVIDER/MODEL/BASE_URL and the flags replace; fallbacks come from the file.
 */
export function resolveConfigFile(
  home: string,
  file: ConfigFile,
  env: NodeJS.ProcessEnv = process.env,
  flags: ConfigFlags = {},
): ResolvedConfig {
  const fileChain: ProviderEntry[] = file.providers
    ? [...file.providers]
    : [
        {
          name: file.provider ?? "openai",
          model: file.model ?? defaultModels[file.provider ?? "openai"],
          ...(file.baseUrl ? { baseUrl: file.baseUrl } : {}),
        },
      ];
  const primaryFromFile = fileChain[0] as ProviderEntry;

  const providerOverride = flags.provider ?? env.MERCURY_PROVIDER;
  const providerSource = flags.provider ? "--provider" : "MERCURY_PROVIDER";
  const primaryName = providerOverride
    ? parseProviderName(providerOverride, providerSource)
    : primaryFromFile.name;
  const nameChanged = primaryName !== primaryFromFile.name;
  const model =
    flags.model ??
    nonEmpty(env.MERCURY_MODEL) ??
    (nameChanged ? defaultModels[primaryName] : primaryFromFile.model);
  const baseUrl =
    flags.baseUrl ?? nonEmpty(env.MERCURY_BASE_URL) ?? (nameChanged ? undefined : primaryFromFile.baseUrl);
  if (primaryName === "openai-compatible" && !baseUrl) {
    throw new ConfigError(
      "provider openai-compatible needs a base URL: set MERCURY_BASE_URL, --base-url, or baseUrl in config.yaml.",
    );
  }
  if (baseUrl) assertUrl(baseUrl, flags.baseUrl ? "--base-url" : "MERCURY_BASE_URL");

  const primary: ProviderEntry = {
    ...(nameChanged ? {} : primaryFromFile),
    name: primaryName,
    model,
    ...(baseUrl ? { baseUrl } : {}),
  };
  if (!baseUrl) delete primary.baseUrl;
  const chain = [primary, ...fileChain.slice(1)].map((entry) => ({
    ...entry,
    ...(entry.baseUrl || !defaultBaseUrls[entry.name] ? {} : { baseUrl: defaultBaseUrls[entry.name] }),
  }));

  return {
    home,
    chain,
    agent: {
      maxSteps: file.agent?.maxSteps ?? 25,
      contextWindow: file.agent?.contextWindow ?? primary.contextWindow ?? 128_000,
      maxOutputTokens: file.agent?.maxOutputTokens ?? 4096,
      historyReserveTokens: file.agent?.historyReserveTokens ?? 8192,
      verifyCommand: file.agent?.verifyCommand ?? null,
    },
    budget: {
      dailyTokens: file.budget?.dailyTokens === undefined ? 2_000_000 : file.budget.dailyTokens,
      dailyUsd: file.budget?.dailyUsd ?? null,
    },
    prices: file.prices ?? {},
    retry: {
      attempts: file.retry?.attempts ?? 3,
      baseDelayMs: file.retry?.baseDelayMs ?? 500,
      maxDelayMs: file.retry?.maxDelayMs ?? 20_000,
      requestTimeoutMs: file.retry?.requestTimeoutMs ?? 120_000,
    },
    permissions: {
      readRoots: file.permissions?.readRoots ?? [],
      writeRoots: file.permissions?.writeRoots ?? [],
      allowAllMinutes: file.permissions?.allowAllMinutes ?? 30,
    },
    memory: {
      enabled: file.memory?.enabled ?? true,
      showReceipts: file.memory?.showReceipts ?? true,
      promptTokens: file.memory?.promptTokens ?? 1200,
      extractAutomatically: file.memory?.extractAutomatically ?? true,
    },
    telegram: { enabled: file.telegram?.enabled ?? false, groups: file.telegram?.groups ?? [] },
    mcp: resolveMcpConfig(file.mcp),
    // Off by default: a heartbeat spends tokens while nobody is watching; the user opts in.
    heartbeat: { intervalMinutes: file.heartbeat?.intervalMinutes ?? 0 },
    sandbox: {
      networkCommands: file.sandbox?.networkCommands ?? [],
      unfilteredNetwork: file.sandbox?.unfilteredNetwork ?? false,
    },
    log: { level: file.log?.level ?? "info" },
    stall: {
      softMs: parseIntegerEnv(env, "MERCURY_STALL_SOFT_MS", 180_000),
      hardMs: parseIntegerEnv(env, "MERCURY_STALL_HARD_MS", 480_000),
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}

function assertUrl(value: string, source: string): void {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new ConfigError(`${source}="${value}" is not an http(s) URL, e.g. http://127.0.0.1:11434/v1.`);
  }
}

function resolveMcpConfig(file: ConfigFile["mcp"]): ResolvedMcpConfig {
  return { servers: file?.servers ?? {}, instructionsTokens: file?.instructionsTokens ?? 1000 };
}
