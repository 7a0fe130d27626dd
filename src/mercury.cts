#!/usr/bin/env node
/**
 * The `mercury` command (package.json "bin"). A CommonJS file, so that `mercury memory add|search`
 * can run without Node's ES-module loader: Node sets that loader up for an ES-module entry (and with
 * it, for each file, URL resolution and module records), ~20 ms of a command that should take about
 * the time of `node` itself (issue 11; BENCHMARKS.md, memory command latency). Those two commands
 * run from dist/fast/, the same sources compiled to CommonJS by the same build (tsconfig.fast.json);
 * everything else, and a memory command line the fast path leaves to the full program, runs the
 * ES-module program (cli.js), as `node dist/cli.js` does.
 * CommonJS code can load the ES-module packages the memory commands use (stemmer) only where Node
 * has `require` of ES modules (20.19+, 22.12+); elsewhere, and without dist/fast, the ES-module
 * program runs the memory commands too.
 */
import fs = require("node:fs");
import path = require("node:path");

type FastPath = typeof import("./cli/commands/memory-fast.js");

const args = process.argv.slice(2);
const fastEntry = path.join(__dirname, "fast", "cli", "commands", "memory-fast.js");

function fastPath(): FastPath | null {
  if (args[0] !== "memory" || (args[1] !== "add" && args[1] !== "search")) return null;
  if (!process.features.require_module || !fs.existsSync(fastEntry)) return null;
  return require(fastEntry) as FastPath;
}

async function main(): Promise<void> {
  const fast = fastPath();
  const code = fast ? await fast.runMemoryFast(args) : null;
  // Without closing the database: no WAL checkpoint, no heap teardown (memory-fast.ts).
  if (fast && code !== null) await fast.exitWithoutClosing(code);
  // The program reads its command line itself, from the top (src/cli.ts).
  else await import("./cli.js");
}

// A failure is thrown as the ES-module program's top-level await throws it: Node prints it and
// exits 1. The commands report their own errors first (report-error.ts); this is only what escapes.
main().then(undefined, (error: unknown) => {
  process.exitCode = 1;
  throw error;
});
