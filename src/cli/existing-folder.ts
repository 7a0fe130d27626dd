import { statSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError } from "../config/errors.js";

/**
 * `--cwd` must name a folder that exists (`run` and `chat`): a mistyped one would otherwise run the
 * task nowhere, every command failing, and still report success. Returns the absolute path.
 */
export function existingFolder(given: string): string {
  const cwd = resolve(given);
  let isFolder: boolean;
  try {
    isFolder = statSync(cwd).isDirectory();
  } catch (error) {
    if (!(error instanceof Error && "code" in error)) throw error;
    throw new ConfigError(
      `--cwd ${cwd}: ${String(error.code) === "ENOENT" ? "no such folder" : error.message}. Give an existing project folder.`,
    );
  }
  if (!isFolder) throw new ConfigError(`--cwd ${cwd}: not a folder. Give an existing project folder.`);
  return cwd;
}
