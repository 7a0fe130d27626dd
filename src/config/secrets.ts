import { chmodSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { ConfigError } from "./errors.js";

const assignment = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)?\s*$/;

/** Parses a .env file: KEY=value, optional quotes, # comments. A malformed line is an error, not skipped. */
export function parseDotEnv(text: string, source: string): Record<string, string> {
  const values: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const match = assignment.exec(line);
    if (!match) {
      throw new ConfigError(`${source}:${index + 1}: expected KEY=value, got "${redactLine(trimmed)}".`);
    }
    const key = match[1] as string;
    let value = (match[2] ?? "").trim();
    if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) {
      value = value.slice(1, -1);
    }
    values[key] = value;
  });
  return values;
}

function redactLine(line: string): string {
  return line.length > 12 ? `${line.slice(0, 6)}…` : line;
}

export function readDotEnv(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  return parseDotEnv(readFileSync(path, "utf8"), path);
}

/** The process environment wins over the .env file, so a one-off `KEY=… mercury run` does what it says. */
export function environmentWithDotEnv(path: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...readDotEnv(path), ...env };
}

/** Writes (merging into) the .env file atomically with mode 0600. */
export function writeDotEnv(path: string, updates: Record<string, string>): void {
  const merged = { ...readDotEnv(path), ...updates };
  const body = `${Object.entries(merged)
    .map(([key, value]) => `${key}=${quoteIfNeeded(value)}`)
    .join("\n")}\n`;
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, body, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

function quoteIfNeeded(value: string): string {
  return /[\s#"']/.test(value) ? `"${value.replace(/"/g, '\\"')}"` : value;
}

export function dotEnvModeProblem(path: string): string | null {
  if (!existsSync(path)) return null;
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    return `${path} has mode ${mode.toString(8)}; others can read your keys. Fix: chmod 600 ${path}`;
  }
  return null;
}

const secretNamePattern = /(KEY|TOKEN|SECRET|PASSWORD)$/i;
const secretShapes: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}\b/g,
  /\bsk-ant-[A-Za-z0-9_-]{16,}\b/g,
  /\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/g, // Telegram bot tokens
  /(Bearer\s+)[A-Za-z0-9._~+/-]{12,}=*/gi,
];

/**
 * Removes secrets from text bound for logs, errors and chat: every value of a secret-named
 * environment variable, and well-known key shapes even when we were never told the value.
 */
export class Redactor {
  private readonly values: string[];

  constructor(env: NodeJS.ProcessEnv) {
    this.values = Object.entries(env)
      .filter(
        ([name, value]) => secretNamePattern.test(name) && typeof value === "string" && value.length >= 6,
      )
      .map(([, value]) => value as string)
      .sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let result = text;
    for (const value of this.values) result = result.split(value).join("[REDACTED]");
    for (const shape of secretShapes) {
      result = result.replace(shape, (match, prefix: unknown) =>
        typeof prefix === "string" && match.startsWith(prefix) ? `${prefix}[REDACTED]` : "[REDACTED]",
      );
    }
    return result;
  }
}
