import { createRequire } from "node:module";

type YamlLibrary = typeof import("yaml");
let library: YamlLibrary | undefined;

/**
 * The `yaml` package, loaded the first time a YAML text is actually read or written: it is about
 * 300 KB of JavaScript, and most commands never see YAML (no config file, no skills, or a config
 * file whose validated snapshot is still current, see config/snapshot.ts). Synchronous because
 * loading config is; the package is CommonJS under Node, so `require` and `import` share one copy.
 */
export function yamlLibrary(): YamlLibrary {
  library ??= createRequire(import.meta.url)("yaml") as YamlLibrary;
  return library;
}
