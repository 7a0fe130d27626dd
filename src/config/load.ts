import { existsSync, readFileSync } from "node:fs";
import type { z } from "zod";
import { ConfigError } from "./errors.js";
import { homePaths } from "./paths.js";
import { type ConfigFlags, resolveConfigFile } from "./resolve.js";
import { type ConfigFile, configFileSchema, type ResolvedConfig } from "./schema.js";
import { readSnapshot, writeSnapshot } from "./snapshot.js";
import { yamlLibrary } from "./yaml.js";

export type { ConfigFlags } from "./resolve.js";

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

/**
 * Precedence: flags > environment > config file > defaults (see resolve.ts), over the config file
 * read and validated here.
 */
export function resolveConfig(
  home: string,
  env: NodeJS.ProcessEnv = process.env,
  flags: ConfigFlags = {},
): ResolvedConfig {
  return resolveConfigFile(home, readConfigFile(homePaths(home).config), env, flags);
}
