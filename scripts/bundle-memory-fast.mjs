#!/usr/bin/env node
// Build step (after tsc): bundles the `mercury memory add|search` fast path into a few files.
// On Node 20 each ES module file costs a resolution, a read (a round trip to the thread pool, long on a
// loaded machine) and a compile: the path's 72-83 files were ~25 ms CPU of a ~135 ms command
// (BENCHMARKS.md, memory-command latency). dist/cli/commands/memory-fast.js (what dist/cli.js
// imports) is replaced by the bundle's entry; everything `memory search` loads goes into one chunk
// ("hot"; the entry's own imports apart, see `groups`), what `memory add` adds (consolidation) into a second ("add"), and every other module
// reachable from the entry — its lazy imports: settings validation, migrations, the provider chain,
// the error reporter — into chunks of their own under dist/cli/commands/memory-fast/. All of it is one
// module graph, so the process never holds two copies of one module (an error class from a chunk and
// its copy in dist/ would fail each other's `instanceof`). npm packages stay external.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { rollup } from "rollup";

const root = resolve(import.meta.dirname, "..");
const dist = join(root, "dist");
const outdir = join(dist, "cli/commands");
const entry = join(outdir, "memory-fast.js");
const chunkDir = join(outdir, "memory-fast");
const MARKER = "// Bundled by scripts/bundle-memory-fast.mjs";
// Stands for the path from an output file back to dist/, filled in once the file's place is known.
const TO_DIST = "@@mercury-dist@@";
// What each command loads first: `memory search` (the entry and the memory service), then `memory add`.
// The entry's own imports are a chunk apart: any other memory command line (help, `memory list`)
// also passes through the entry before the full program takes it, and must not load the service.
const groups = [
  ["options", [entry]],
  ["hot", [join(dist, "app/memory-cli.js")]],
  ["add", [join(dist, "memory/consolidation/consolidate.js")]],
];

// tsc rewrites the entry on every build; a bundled entry means this step already ran on this output.
if (readFileSync(entry, "utf8").startsWith(MARKER)) process.exit(0);
for (const [, files] of groups)
  for (const file of files)
    if (!existsSync(file))
      throw new Error(`${file} is gone: update the chunk groups of ${import.meta.filename}`);

const plugin = {
  name: "mercury-memory-fast",
  // tsc's source maps are carried through, so stack traces still lead to src/.
  load(id) {
    const code = readFileSync(id, "utf8");
    const mapPath = `${id}.map`;
    return existsSync(mapPath) ? { code, map: readFileSync(mapPath, "utf8") } : { code, map: null };
  },
  // A bundled module keeps the URL of its own file in dist/: modules locate files next to themselves
  // (config/snapshot.js hashes its validator's sources, config/yaml.js requires from its folder).
  transform(code, id) {
    if (!code.includes("import.meta")) return null;
    if (code.split("import.meta").length !== code.split("import.meta.url").length)
      throw new Error(`${id} uses import.meta other than import.meta.url: teach ${import.meta.filename}`);
    const own = `new URL(${JSON.stringify(`${TO_DIST}/${relative(dist, id)}`)}, import.meta.url).href`;
    // The replacement stays on its line: tsc's mappings still hold (columns shift within one line).
    return { code: code.replaceAll("import.meta.url", own), map: null };
  },
};

/** The modules `files` import statically, transitively (themselves included). */
function closure(getModuleInfo, files) {
  const seen = new Set();
  const pending = [...files];
  while (pending.length > 0) {
    const id = pending.pop();
    if (seen.has(id)) continue;
    seen.add(id);
    pending.push(...(getModuleInfo(id)?.importedIds ?? []).filter((imported) => imported.startsWith(dist)));
  }
  return seen;
}

const bundle = await rollup({
  input: entry,
  // Packages and Node's modules stay imports; only our own files (relative paths) are bundled.
  external: (id) => !id.startsWith(".") && !id.startsWith("/"),
  plugins: [plugin],
  onwarn(warning, warn) {
    // tsc's output has import cycles that ES modules resolve as before (rollup keeps their order).
    if (warning.code !== "CIRCULAR_DEPENDENCY") warn(warning);
  },
});
let members;
rmSync(chunkDir, { recursive: true, force: true });
const { output } = await bundle.write({
  dir: outdir,
  format: "es",
  entryFileNames: "memory-fast.js",
  chunkFileNames: "memory-fast/[name]-[hash].js",
  sourcemap: true,
  banner: MARKER,
  hoistTransitiveImports: false,
  manualChunks(id, { getModuleInfo }) {
    members ??= groups.map(([name, files]) => [name, closure(getModuleInfo, files)]);
    if (id === entry) return undefined;
    return members.find(([, ids]) => ids.has(id))?.[0];
  },
});
await bundle.close();

// Which dist/ modules each output file holds (what a test that traces loaded files reads them as).
const manifest = {};
for (const chunk of output) {
  if (chunk.type !== "chunk") continue;
  const file = join(outdir, chunk.fileName);
  const text = readFileSync(file, "utf8");
  if (text.includes(TO_DIST)) writeFileSync(file, text.replaceAll(TO_DIST, relative(dirname(file), dist)));
  manifest[relative(dist, file)] = Object.keys(chunk.modules)
    .map((id) => relative(root, id))
    .sort();
}
writeFileSync(join(chunkDir, "manifest.json"), `${JSON.stringify(manifest, null, 1)}\n`);
