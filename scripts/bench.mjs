#!/usr/bin/env node
// `npm run bench`: every benchmark whose numbers BENCHMARKS.md records, each printed with the command
// that produced it. Retrieval runs on both dev sets (../shared/bench/locomo-dev.json and
// longmemeval-dev.json); pass --data FILE (repeatable) to measure others instead.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const given = args.flatMap((arg, index) => (args[index - 1] === "--data" ? [arg] : []));
const data =
  given.length > 0
    ? given
    : ["locomo-dev.json", "longmemeval-dev.json"].map((file) => resolve(root, "../shared/bench", file));
const cli = join(root, "dist/cli.js");

function run(label, command, commandArgs) {
  console.log(
    `\n## ${label}\n$ ${[command === process.execPath ? "node" : command, ...commandArgs].join(" ")}`,
  );
  const result = spawnSync(command, commandArgs, { stdio: "inherit", cwd: root });
  if (result.status !== 0) {
    console.error(`${label} failed with exit ${result.status}`);
    process.exitCode = 1;
  }
}

run("start-up and loop overhead", process.execPath, ["scripts/bench-runtime.mjs"]);
run("command start-up against node -e 0", process.execPath, ["scripts/bench-startup.mjs"]);
const present = data.filter((file) => existsSync(file));
for (const file of data)
  if (!present.includes(file)) console.log(`\n(skipping retrieval on ${file}: not found; pass --data FILE)`);
if (present.length > 0)
  run("memory retrieval (each data set beside plain FTS5)", process.execPath, [
    cli,
    "bench",
    "retrieval",
    ...present.flatMap((file) => ["--data", file]),
  ]);
run("memory scale, 100,000 memories", process.execPath, [cli, "bench", "memory-scale", "--n", "100000"]);
run("sandbox overhead per command", process.execPath, ["scripts/bench-sandbox.mjs"]);
run("permission engine false-ask rate", "npx", ["vitest", "run", "test/permissions/benign.test.ts"]);
