#!/usr/bin/env node
// `npm run bench`: every benchmark whose numbers BENCHMARKS.md records, each printed with the command
// that produced it. Pass --data FILE for the LoCoMo file (default ../shared/bench/locomo-dev.json).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const dataIndex = args.indexOf("--data");
const data = dataIndex >= 0 ? args[dataIndex + 1] : resolve(root, "../shared/bench/locomo-dev.json");
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
if (existsSync(data))
  run("memory retrieval (LoCoMo)", process.execPath, [cli, "bench", "retrieval", "--data", data]);
else console.log(`\n(skipping retrieval: ${data} not found; pass --data FILE)`);
run("memory scale, 100,000 memories", process.execPath, [cli, "bench", "memory-scale", "--n", "100000"]);
run("sandbox overhead per command", process.execPath, ["scripts/bench-sandbox.mjs"]);
run("permission engine false-ask rate", "npx", ["vitest", "run", "test/permissions/benign.test.ts"]);
