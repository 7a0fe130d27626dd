import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** A module hook that prints every module the process loads, so a test sees what a command pulls in. */
export function loadTracer(directory: string): Record<string, string> {
  const hook = join(directory, "trace-loads.mjs");
  const loader = `export async function load(url, context, next) { process.stderr.write("LOADED " + url + "\\n"); return next(url, context); }`;
  writeFileSync(
    hook,
    `import { register } from "node:module";\nregister("data:text/javascript," + encodeURIComponent(${JSON.stringify(loader)}));\n`,
  );
  return { NODE_OPTIONS: `--import=${hook}` };
}

/** The module URLs a traced process loaded, in order. */
export function loaded(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("LOADED "))
    .map((line) => line.slice("LOADED ".length));
}

/** Marks the process's first `fetch` call on stderr (after loadTracer's modules), for `loadedBeforeFetch`. */
export function fetchMarker(directory: string): Record<string, string> {
  const preload = join(directory, "mark-fetch.cjs");
  writeFileSync(
    preload,
    `const original = globalThis.fetch;\nlet first = true;\nglobalThis.fetch = function (...args) {\n  if (first) { first = false; process.stderr.write("FIRST-FETCH\\n"); }\n  return original.apply(this, args);\n};\n`,
  );
  return { NODE_OPTIONS: `--require=${preload}` };
}

/** The module URLs a traced process loaded before its first `fetch` (see fetchMarker). */
export function loadedBeforeFetch(stderr: string): string[] {
  const end = stderr.indexOf("FIRST-FETCH\n");
  if (end < 0) throw new Error("the process never called fetch: was fetchMarker in its NODE_OPTIONS?");
  return loaded(stderr.slice(0, end));
}

/**
 * Every module file a process compiled, read from V8's coverage output (`NODE_V8_COVERAGE`), which
 * sees modules loaded by `require` of an ES module as well as by `import`: a loader hook
 * (`loadTracer`) sees only the file `require` was called with, not what that file imports.
 */
export function coverageTracer(directory: string): {
  env: Record<string, string>;
  /** The `file:` URLs compiled, and with `builtIns` the `node:` modules too. */
  files(builtIns?: boolean): string[];
} {
  const output = join(directory, `coverage-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  return {
    env: { NODE_V8_COVERAGE: output },
    files(builtIns = false) {
      const urls = new Set<string>();
      for (const name of readdirSync(output)) {
        const report = z
          .object({ result: z.array(z.object({ url: z.string() })) })
          .parse(JSON.parse(readFileSync(join(output, name), "utf8")));
        for (const script of report.result)
          if (script.url.startsWith("file:") || (builtIns && script.url.startsWith("node:")))
            urls.add(script.url);
      }
      return [...urls];
    },
  };
}

/**
 * The `mercury` bin runs `memory add|search` from dist/fast/, the same sources compiled to CommonJS
 * (src/mercury.cts): each file under its program name (dist/fast/x.js → dist/x.js), so that a check by
 * name holds for either build.
 */
export function sameNames(urls: string[]): string[] {
  return urls.map((url) => url.replace("/dist/fast/", "/dist/"));
}

/** Files of the ES-module program (dist/ outside dist/fast/, the bin itself aside) a run loaded. */
export function programFiles(urls: string[]): string[] {
  return urls.filter(
    (url) =>
      !url.includes("/node_modules/") && /\/dist\/(?!fast\/)/.test(url) && !url.endsWith("/dist/mercury.cjs"),
  );
}
