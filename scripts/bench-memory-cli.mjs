#!/usr/bin/env node
// Wall time of `mercury memory search` and `mercury memory add` with 10,000 memories stored, side by
// side with a bare `node -e 0` in the same run (only ratios against the same-run baseline mean
// anything on a shared machine). The store is seeded through the real memory service (consolidation,
// search index) in a fresh MERCURY_HOME; no model is configured, so no model call is involved.
// Usage: npm run build && node scripts/bench-memory-cli.mjs [--memories N] [--runs N] [--home DIR] [--before DIR] [--json]
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
// What `mercury` runs: the package's "bin" (dist/mercury.cjs since 2026-12-02; dist/cli.js before).
const binOf = (checkout) =>
  join(checkout, JSON.parse(readFileSync(join(checkout, "package.json"), "utf8")).bin.mercury);
const cli = binOf(root);
const program = join(root, "dist/cli.js");
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const count = flag("--memories", 10_000);
const runs = flag("--runs", 7);
const json = args.includes("--json");
// --home DIR keeps the seeded store in DIR and reuses it on the next run (seeding 10,000 memories
// takes minutes); without it a temporary home is seeded and removed.
const homeIndex = args.indexOf("--home");
const keptHome = homeIndex >= 0 ? resolve(args[homeIndex + 1]) : null;
const home = keptHome ?? mkdtempSync(join(tmpdir(), "mercury-bench-memory-"));
const seededMarker = join(home, `bench-seeded-${count}`);
const env = { ...process.env, MERCURY_HOME: home };
for (const key of Object.keys(env)) if (key.startsWith("MERCURY_EMBEDDINGS")) delete env[key];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

try {
  const seedStart = performance.now();
  const { syntheticMemories, syntheticQueries } = await import(join(root, "dist/memory/bench/synthetic.js"));
  let stored = count;
  if (!existsSync(seededMarker)) {
    mkdirSync(home, { recursive: true });
    const { openMemoryForCli } = await import(join(root, "dist/app/memory-cli.js"));
    const { service, close } = await openMemoryForCli({ env });
    // Some synthetic sentences consolidate into earlier ones (confirmations): draw more until `count`
    // memories are stored.
    stored = 0;
    for (const text of syntheticMemories(count * 2, 42)) {
      if (stored >= count) break;
      const outcome = await service.remember({
        userKey: "owner",
        text,
        kind: "fact",
        importance: "normal",
        evidence: "manual",
      });
      if (outcome.action === "created" || outcome.action === "conflict") stored++;
    }
    close();
    writeFileSync(seededMarker, `${stored}\n`);
  }
  const seedSeconds = (performance.now() - seedStart) / 1000;

  const queries = syntheticQueries(runs, 7);
  const fresh = syntheticMemories(runs, 4242);
  const cases = {
    "node -e 0 (baseline)": () => ["-e", "0"],
    "mercury memory search <q>": (run) => [cli, "memory", "search", ...queries[run].split(" ")],
    'mercury memory add "<text>"': (run) => [cli, "memory", "add", `Bench note ${run}: ${fresh[run]}`],
  };
  // The ES-module program run directly (`node dist/cli.js …`), when the bin is another file.
  if (cli !== program) {
    cases["node dist/cli.js memory search <q>"] = (run) => [
      program,
      "memory",
      "search",
      ...queries[run].split(" "),
    ];
    cases['node dist/cli.js memory add "<text>"'] = (run) => [
      program,
      "memory",
      "add",
      `Bench note esm ${run}: ${fresh[run]}`,
    ];
  }
  // --before DIR: the same commands from an earlier build (a checkout with dist/ built), interleaved.
  // They run on a copy of the seeded home: each build keeps its own validated config snapshot (its
  // fingerprint is of the build's own code), and one shared home would make both builds miss it.
  const beforeIndex = args.indexOf("--before");
  const beforeHome = `${home}-before`;
  if (beforeIndex >= 0) {
    const before = binOf(resolve(args[beforeIndex + 1]));
    cases["mercury memory search <q> [before]"] = (run) => [
      before,
      "memory",
      "search",
      ...queries[run].split(" "),
    ];
    cases['mercury memory add "<text>" [before]'] = (run) => [
      before,
      "memory",
      "add",
      `Bench note before ${run}: ${fresh[run]}`,
    ];
  }
  // A config file as `mercury setup` leaves one (read through its validated snapshot after the first run).
  if (!existsSync(join(home, "config.yaml")))
    writeFileSync(join(home, "config.yaml"), "provider: openai\nmodel: gpt-4o-mini\nlog:\n  level: info\n");
  if (beforeIndex >= 0) {
    rmSync(beforeHome, { recursive: true, force: true });
    cpSync(home, beforeHome, { recursive: true });
  }
  const beforeEnv = { ...env, MERCURY_HOME: beforeHome };
  const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, { wall: [], cpu: [] }]));
  const timing = join(home, "bench-time.txt");
  // Interleaved, so a burst of load hits every case alike. Wall time of the whole process, and its
  // CPU (user + system, from /usr/bin/time, 10 ms resolution), which a loaded machine distorts less.
  for (let run = -1; run < runs; run++) {
    for (const [name, commandArgs] of Object.entries(cases)) {
      const began = performance.now();
      const result = spawnSync(
        "/usr/bin/time",
        ["-f", "%U %S", "-o", timing, process.execPath, ...commandArgs(Math.max(run, 0))],
        { env: name.endsWith("[before]") ? beforeEnv : env, stdio: ["ignore", "pipe", "pipe"] },
      );
      const wall = performance.now() - began;
      if (result.error) throw new Error(`/usr/bin/time is needed: ${result.error.message}`);
      if (result.status !== 0) throw new Error(`${name} failed (${result.status}): ${result.stderr}`);
      // Run -1 warms the file cache and the config snapshot; it is not counted.
      if (run < 0) continue;
      const [user, system] = readFileSync(timing, "utf8").trim().split(/\s+/).slice(-2).map(Number);
      samples[name].wall.push(wall);
      samples[name].cpu.push((user + system) * 1000);
    }
  }
  const baseline = samples["node -e 0 (baseline)"];
  const baseWall = median(baseline.wall);
  const baseCpu = median(baseline.cpu);
  const rows = Object.entries(samples).map(([name, { wall, cpu }]) => ({
    name,
    medianMs: Math.round(median(wall)),
    ratio: Math.round((median(wall) / baseWall) * 100) / 100,
    cpuMs: Math.round(median(cpu)),
    cpuRatio: Math.round((median(cpu) / baseCpu) * 100) / 100,
  }));
  const report = {
    memories: stored,
    runs,
    seedSeconds: Math.round(seedSeconds),
    loadAverage: Math.round(loadavg()[0] * 10) / 10,
    node: process.version,
    rows,
  };
  if (json) console.log(JSON.stringify(report));
  else {
    console.log(`${stored} memories (seeded in ${report.seedSeconds} s), ${runs} interleaved runs each,`);
    console.log(`load average ${report.loadAverage}, Node ${report.node}`);
    console.log("| command | median wall | × node -e 0 | median CPU | × node -e 0 |\n|---|---|---|---|---|");
    for (const row of rows)
      console.log(
        `| ${row.name} | ${row.medianMs} ms | ${row.ratio}× | ${row.cpuMs} ms | ${row.cpuRatio}× |`,
      );
  }
} finally {
  if (!keptHome) rmSync(home, { recursive: true, force: true });
  rmSync(`${home}-before`, { recursive: true, force: true });
}
