import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parse, parseDocument } from "yaml";
import { ConfigError } from "../../config/errors.js";
import { readConfigFile } from "../../config/load.js";
import { homePaths, mercuryHome } from "../../config/paths.js";
import type { ResolvedConfig } from "../../config/schema.js";
import { loadSettings } from "../../config/settings.js";
import { configFlagsFrom, type GlobalFlags } from "../flags.js";

/** The settings `mercury config` knows, and where each lives in the resolved configuration. */
const settings: Record<string, (config: ResolvedConfig) => unknown> = {
  provider: (config) => config.chain[0]?.name,
  model: (config) => config.chain[0]?.model,
  baseUrl: (config) => config.chain[0]?.baseUrl ?? null,
  "agent.maxSteps": (config) => config.agent.maxSteps,
  "agent.maxOutputTokens": (config) => config.agent.maxOutputTokens,
  "agent.contextWindow": (config) => config.agent.contextWindow,
  "agent.verifyCommand": (config) => config.agent.verifyCommand,
  "budget.dailyTokens": (config) => config.budget.dailyTokens,
  "budget.dailyUsd": (config) => config.budget.dailyUsd,
  "permissions.allowAllMinutes": (config) => config.permissions.allowAllMinutes,
  "memory.enabled": (config) => config.memory.enabled,
  "memory.showReceipts": (config) => config.memory.showReceipts,
  "memory.promptTokens": (config) => config.memory.promptTokens,
  "memory.extractAutomatically": (config) => config.memory.extractAutomatically,
  "telegram.enabled": (config) => config.telegram.enabled,
  "heartbeat.intervalMinutes": (config) => config.heartbeat.intervalMinutes,
  "log.level": (config) => config.log.level,
};

function knownKey(key: string): (config: ResolvedConfig) => unknown {
  const read = settings[key];
  if (!read) {
    throw new ConfigError(`unknown setting "${key}"; known settings: ${Object.keys(settings).join(", ")}.`);
  }
  return read;
}

function format(value: unknown): string {
  return value === null || value === undefined
    ? "null"
    : typeof value === "string"
      ? value
      : JSON.stringify(value);
}

export function listSettings(globals: GlobalFlags, json: boolean): void {
  const { config } = loadSettings({ flags: configFlagsFrom(globals) });
  const values = Object.fromEntries(
    Object.entries(settings).map(([key, read]) => [key, read(config) ?? null]),
  );
  if (json) {
    process.stdout.write(`${JSON.stringify(values)}\n`);
    return;
  }
  const width = Math.max(...Object.keys(values).map((key) => key.length));
  for (const [key, value] of Object.entries(values))
    process.stdout.write(`${key.padEnd(width)}  ${format(value)}\n`);
}

export function getSetting(key: string, globals: GlobalFlags, json = false): void {
  const read = knownKey(key);
  const { config } = loadSettings({ flags: configFlagsFrom(globals) });
  const value = read(config);
  process.stdout.write(json ? `${JSON.stringify({ key, value: value ?? null })}\n` : `${format(value)}\n`);
}

/**
 * Writes one key into config.yaml, keeping comments and every other key, and validates the whole
 * file with the same schema `mercury` reads it with before it replaces the old one.
 */
export function setSetting(key: string, raw: string, json = false): void {
  knownKey(key);
  // Not loadSettings: it would refuse the file this command is often run to repair (an invalid
  // value); the file as it will be written is validated below, whole.
  const paths = homePaths(mercuryHome(process.env));
  const document = parseDocument(existsSync(paths.config) ? readFileSync(paths.config, "utf8") : "");
  if (document.errors.length > 0) {
    throw new ConfigError(
      `${paths.config} is not valid YAML (${document.errors[0]?.message}); fix it first.`,
    );
  }
  const value: unknown = key === "model" || key === "agent.verifyCommand" ? raw : parse(raw);
  const path = key.split(".");
  // With a fallback chain, the primary provider is the chain's first entry.
  const target =
    path.length === 1 && document.has("providers")
      ? ["providers", 0, key === "provider" ? "name" : key]
      : path;
  if (value === null && !key.startsWith("budget.")) document.deleteIn(target);
  else document.setIn(target, value);
  mkdirSync(dirname(paths.config), { recursive: true });
  const temporary = `${paths.config}.${process.pid}.tmp`;
  writeFileSync(temporary, document.toString());
  try {
    readConfigFile(temporary);
  } catch (error) {
    rmSync(temporary, { force: true });
    if (error instanceof ConfigError) {
      // The rule the value broke, not the loader's advice to delete the file: the file is unchanged.
      const rules = error.message.split("\n").filter((line) => line.startsWith("  - "));
      throw new ConfigError(
        rules.length > 0
          ? `${key} = ${raw} was not saved (${paths.config} is unchanged):\n${rules.join("\n")}\nGive a value that fits; \`mercury config list\` shows the current ones.`
          : `${key} = ${raw} was not saved: ${error.message.split(temporary).join(paths.config)}`,
      );
    }
    throw error;
  }
  renameSync(temporary, paths.config);
  process.stdout.write(
    json
      ? `${JSON.stringify({ key, value, saved: paths.config })}\n`
      : `${key} = ${format(value)} (saved in ${paths.config})\n`,
  );
}
