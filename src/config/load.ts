import { existsSync, readFileSync } from "node:fs";
import type { z } from "zod";
import { ConfigError } from "./errors.js";
import { resolveMcpConfig } from "./mcp-schema.js";
import { homePaths } from "./paths.js";
import {
  type ConfigFile,
  configFileSchema,
  defaultBaseUrls,
  defaultModels,
  type ProviderEntry,
  type ProviderName,
  providerNames,
  type ResolvedConfig,
} from "./schema.js";
import { readSnapshot, writeSnapshot } from "./snapshot.js";
import { yamlLibrary } from "./yaml.js";

/** Values given on the command line; they beat everything else. */
export interface ConfigFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

// "botToken" and "apiKey" are secrets; "dailyTokens" and "maxOutputTokens" are not.
const secretKeyPattern = /(api[_-]?key|secret|password|passwd|token)$/i;

export function readConfigFile(path: string): ConfigFile {
  if (!existsSync(path)) return {};
  const text = readFileSync(path, "utf8");
  // Validated before with this exact text and this validating code: no YAML parse (config/snapshot.ts).
  const validated = readSnapshot(path, text);
  if (validated !== null) return validated as ConfigFile;
  const document = yamlLibrary().parseDocument(text);
  if (document.errors.length > 0) {
    const first = document.errors[0];
    throw new ConfigError(
      `${path}: not valid YAML: ${first?.message ?? "unknown error"}. Fix the file or delete it and run \`mercury setup\`.`,
    );
  }
  const raw: unknown = document.toJS() ?? {};
  const secretPath = findSecretKey(raw, []);
  if (secretPath) {
    throw new ConfigError(
      `${path}: key "${secretPath}" looks like a secret. Secrets never go in config.yaml: put it in the environment or in ${homePaths("$MERCURY_HOME").env} (run \`mercury setup\`), and remove it from the file.`,
    );
  }
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(formatConfigIssues(path, parsed.error));
  writeSnapshot(path, text, parsed.data);
  return parsed.data;
}

function findSecretKey(value: unknown, path: string[]): string | null {
  if (value === null || typeof value !== "object") return null;
  for (const [key, child] of Object.entries(value)) {
    const here = [...path, key];
    if (secretKeyPattern.test(key)) return here.join(".");
    const nested = findSecretKey(child, here);
    if (nested) return nested;
  }
  return null;
}

export function formatConfigIssues(path: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const key = issue.path.length > 0 ? issue.path.join(".") : "(top level)";
    return `  - ${key}: ${issue.message}`;
  });
  return `${path} is invalid:\n${lines.join("\n")}\nFix these keys (see README "Configuration") or delete the file and run \`mercury setup\`.`;
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
export function resolveConfig(
  home: string,
  env: NodeJS.ProcessEnv = process.env,
  flags: ConfigFlags = {},
): ResolvedConfig {
  const paths = homePaths(home);
  const file = readConfigFile(paths.config);

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
