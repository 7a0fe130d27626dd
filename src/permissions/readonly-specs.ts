import type { Spec } from "./readonly-specs-common.js";
import { fileSpecs } from "./readonly-specs-files.js";
import { searchSpecs } from "./readonly-specs-search.js";
import { textSpecs } from "./readonly-specs-text.js";

export type { Spec };

/**
 * The read-only allowlist table, by program (the option lists live in readonly-specs-files.ts,
 * readonly-specs-text.ts and readonly-specs-search.ts; the Spec shape in readonly-specs-common.ts).
 */
export const specs: Record<string, Spec> = { ...fileSpecs, ...textSpecs, ...searchSpecs };

/**
 * The exact words that only print a version, per program. Not a shared list: `make version` runs a
 * Makefile target, `npm version` bumps the package and runs its scripts, `java version` runs a class,
 * `tsc version`/`gcc version` compile a file, `vitest version` runs tests, and `python -v`/`ruby -v`
 * start an interpreter that reads a program from standard input.
 */
export const versionArguments: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    node: ["--version", "-v"],
    npm: ["--version", "-v"],
    npx: ["--version", "-v"],
    pnpm: ["--version", "-v"],
    yarn: ["--version", "-v"],
    bun: ["--version", "-v"],
    deno: ["--version", "-V"],
    tsc: ["--version", "-v"],
    vitest: ["--version", "-v"],
    biome: ["--version", "version"],
    python: ["--version", "-V"],
    python3: ["--version", "-V"],
    pip: ["--version", "-V"],
    pip3: ["--version", "-V"],
    ruby: ["--version"],
    perl: ["--version", "-v", "-V"],
    java: ["--version", "-version"],
    git: ["--version", "version"],
    go: ["version"],
    cargo: ["--version", "-V", "version"],
    rustc: ["--version", "-V"],
    gcc: ["--version"],
    clang: ["--version"],
    make: ["--version", "-v"],
    docker: ["--version", "-v", "version"],
  }),
);
