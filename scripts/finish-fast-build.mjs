// Part of `npm run build`, after `tsc -p tsconfig.fast.json`: makes dist/fast/ — the CommonJS copy of
// `mercury memory add|search` (docs/DECISIONS.md, 2026-12-02) — loadable as CommonJS.
//  - dist/fast/package.json says "commonjs" (the package itself is "module").
//  - `import.meta.url` (tsc leaves it as written; it is a syntax error in CommonJS) becomes the file's
//    own URL, which is what it means in the ES module the same source compiles to.
// Anything else an ES module may hold and CommonJS may not (another `import.meta` property, a
// top-level `await`) fails the build, naming the file: each file is compiled here as Node's CommonJS
// loader compiles it.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { compileFunction } from "node:vm";

const root = fileURLToPath(new URL("../dist/fast/", import.meta.url));
writeFileSync(join(root, "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);

const ownUrl = 'require("node:url").pathToFileURL(__filename).href';
const problems = [];
let files = 0;
for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
  const path = join(entry.parentPath, entry.name);
  const text = readFileSync(path, "utf8");
  const rewritten = text.replaceAll("import.meta.url", ownUrl);
  const name = relative(root, path);
  try {
    compileFunction(rewritten, ["exports", "require", "module", "__filename", "__dirname"], {
      filename: path,
    });
  } catch (error) {
    problems.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (rewritten !== text) writeFileSync(path, rewritten);
  files++;
}
if (problems.length > 0) {
  console.error(`dist/fast cannot load as CommonJS:\n${problems.map((line) => `  ${line}`).join("\n")}`);
  console.error(
    "Keep the memory commands' modules free of these (or leave the module out of tsconfig.fast.json).",
  );
  process.exit(1);
}
if (files === 0) {
  console.error("dist/fast holds no JavaScript: run `tsc -p tsconfig.fast.json` first");
  process.exit(1);
}
