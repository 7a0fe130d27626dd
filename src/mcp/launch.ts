import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { McpServerConfig } from "../config/mcp-schema.js";
import { McpError } from "./errors.js";

/** Everything needed to start a stdio server: the one value a sandbox wrapper rewrites. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The server's writable folder: `$MERCURY_HOME/mcp/<name>/`. */
  stateDirectory: string;
}

/**
 * Wraps a launch before it is spawned (e.g. `bwrap … -- command args` with a profile for the
 * server). The OS sandbox plugs in here; identity when none is configured.
 */
export type LaunchWrapper = (launch: StdioLaunch, server: string) => StdioLaunch;

/** Variables a program needs to run at all; nothing else of Mercury's environment passes. */
const passedThrough = [
  "PATH",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TERM",
  "USER",
  "LOGNAME",
  "SHELL",
  "TMPDIR",
];

/** Replaces `${NAME}` with NAME from the environment (which includes `.env`); a missing one is an error. */
export function expandSecrets(value: string, env: NodeJS.ProcessEnv, where: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
    const found = env[name];
    if (found === undefined || found === "") {
      throw new McpError(
        "config",
        `${where} names \${${name}}, which is not set in the environment or $MERCURY_HOME/.env`,
      );
    }
    return found;
  });
}

/**
 * The launch of a stdio server: a filtered environment (no Mercury secrets unless the config names
 * them), HOME and the working folder set to `$MERCURY_HOME/mcp/<name>/`.
 */
export function stdioLaunch(
  name: string,
  config: McpServerConfig,
  env: NodeJS.ProcessEnv,
  home: string,
): StdioLaunch {
  if (!config.command) throw new McpError("config", `mcp.servers.${name} has no command`);
  const stateDirectory = join(home, "mcp", name);
  mkdirSync(stateDirectory, { recursive: true, mode: 0o700 });
  const filtered: Record<string, string> = {};
  for (const key of passedThrough) {
    const value = env[key];
    if (value !== undefined) filtered[key] = value;
  }
  filtered.HOME = stateDirectory;
  for (const [key, value] of Object.entries(config.env ?? {})) {
    filtered[key] = expandSecrets(value, env, `mcp.servers.${name}.env.${key}`);
  }
  return {
    command: config.command,
    args: config.args ?? [],
    env: filtered,
    cwd: stateDirectory,
    stateDirectory,
  };
}

export function httpHeaders(
  name: string,
  config: McpServerConfig,
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(config.headers ?? {})) {
    headers[key] = expandSecrets(value, env, `mcp.servers.${name}.headers.${key}`);
  }
  return headers;
}
