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

export const versionPrograms = new Set([
  "node",
  "npm",
  "npx",
  "pnpm",
  "yarn",
  "python",
  "python3",
  "pip",
  "pip3",
  "git",
  "tsc",
  "deno",
  "bun",
  "go",
  "cargo",
  "rustc",
  "java",
  "ruby",
  "perl",
  "gcc",
  "clang",
  "make",
  "docker",
  "biome",
  "vitest",
]);
