#!/usr/bin/env node
// Build step (after tsc): bundles the `mercury memory add|search` fast path into a few files.
// On Node 20 each ES module costs a resolution, a read and a compile: the path's 68-83 files were
// ~28 ms of a ~150 ms command (BENCHMARKS.md, memory-command latency). dist/cli/commands/memory-fast.js
// (what dist/cli.js imports) is replaced by the bundle's entry; every module reachable from it,
// including its lazy imports (consolidation, settings validation, migrations, the provider chain),
// goes into chunks under dist/cli/commands/memory-fast/, so the process never holds two copies of one
// module (an error class from a chunk and one from dist/ would fail each other's `instanceof`).
// npm packages stay external: Node loads them from node_modules as before.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const dist = join(root, "dist");
const outdir = join(dist, "cli/commands");
const entry = join(outdir, "memory-fast.js");
const chunkDir = join(outdir, "memory-fast");
const MARKER = "// Bundled by scripts/bundle-memory-fast.mjs";
// Stands for the path from an output file back to dist/, filled in once the file's place is known.
const TO_DIST = "@@mercury-dist@@";

const source = readFileSync(entry, "utf8");
// tsc rewrites the entry on every build; a bundled entry means this step already ran on this output.
if (source.startsWith(MARKER)) process.exit(0);

// A bundled module keeps the URL of its own file in dist/: modules locate files next to themselves
// (config/snapshot.js hashes its validator's sources, config/yaml.js requires from its folder).
const ownUrl = {
  name: "own-import-meta-url",
  setup(builder) {
    builder.onLoad({ filter: /\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!args.path.startsWith(`${dist}/`) || !text.includes("import.meta")) return undefined;
      if (text.split("import.meta").length !== text.split("import.meta.url").length)
        throw new Error(`${args.path} uses import.meta other than import.meta.url: teach the bundle step`);
      const rewritten = text.replaceAll(
        "import.meta.url",
        `new URL(${JSON.stringify(`${TO_DIST}/${relative(dist, args.path)}`)}, import.meta.url).href`,
      );
      return { contents: rewritten, loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

const result = await build({
  entryPoints: [entry],
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  outdir,
  entryNames: "[name]",
  chunkNames: "memory-fast/[name]-[hash]",
  sourcemap: "linked",
  write: false,
  metafile: true,
  allowOverwrite: true,
  plugins: [ownUrl],
  banner: { js: MARKER },
  logLevel: "warning",
});

// Which dist/ modules each output file holds (what a test that traces loaded files reads them as).
const manifest = {};
for (const [output, { inputs }] of Object.entries(result.metafile.outputs)) {
  if (output.endsWith(".js")) manifest[relative(dist, join(root, output))] = Object.keys(inputs).sort();
}
rmSync(chunkDir, { recursive: true, force: true });
mkdirSync(chunkDir, { recursive: true });
for (const file of result.outputFiles) {
  let text = file.text;
  if (text.includes(TO_DIST)) text = text.replaceAll(TO_DIST, relative(dirname(file.path), dist) || ".");
  writeFileSync(file.path, text);
}
writeFileSync(join(chunkDir, "manifest.json"), `${JSON.stringify(manifest, null, 1)}\n`);
