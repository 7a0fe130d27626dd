import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseDocument } from "yaml";
import { readConfigFile } from "./load.js";
import type { ProviderName } from "./schema.js";

/**
 * Sets the primary provider in config.yaml, keeping every other key and the user's comments.
 * The result is validated before it replaces the file. Secrets are never written here.
 */
export function writePrimaryProvider(
  path: string,
  primary: { provider: ProviderName; model: string; baseUrl?: string },
  options: { enableTelegram?: boolean } = {},
): void {
  const document = parseDocument(existsSync(path) ? readFileSync(path, "utf8") : "");
  if (document.errors.length > 0) {
    throw new Error(
      `${path} is not valid YAML (${document.errors[0]?.message}); fix or remove it before running setup`,
    );
  }
  if (document.has("providers")) {
    document.setIn(["providers", 0], {
      name: primary.provider,
      model: primary.model,
      ...(primary.baseUrl ? { baseUrl: primary.baseUrl } : {}),
    });
  } else {
    document.set("provider", primary.provider);
    document.set("model", primary.model);
    if (primary.baseUrl) document.set("baseUrl", primary.baseUrl);
    else document.delete("baseUrl");
  }
  if (options.enableTelegram) document.setIn(["telegram", "enabled"], true);
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, document.toString());
  readConfigFile(temporary);
  renameSync(temporary, path);
}
