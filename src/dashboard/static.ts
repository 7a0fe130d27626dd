import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface StaticAsset {
  body: string;
  type: string;
}

/**
 * The front end is compiled by `npm run build` into dist/web/ (web/ in the source tree); it is read
 * once when the dashboard starts. Nothing is fetched at run time, from a CDN or anywhere else.
 */
export function loadStaticAssets(): Map<string, StaticAsset> {
  const folder = new URL("../../dist/web/", import.meta.url);
  const assets = new Map<string, StaticAsset>();
  for (const [name, type] of [
    ["app.js", "text/javascript; charset=utf-8"],
    ["app.css", "text/css; charset=utf-8"],
  ] as const) {
    const file = fileURLToPath(new URL(name, folder));
    try {
      assets.set(name, { body: readFileSync(file, "utf8"), type });
    } catch (error) {
      throw new Error(
        `the dashboard's front end is missing (${file}: ${error instanceof Error ? error.message : String(error)}); run \`npm run build\``,
      );
    }
  }
  return assets;
}
