#!/usr/bin/env node
// Overhead of the OS sandbox per command: `true` run the way run_command runs it (process group,
// output capture) bare and inside the sandbox, interleaved in the same run, p50/p95 of each.
// The sandboxed time includes building the launch (finding the secret locations to mask) and, as
// root, the pids cgroup run_command gives each command. With --network, a third series: `true`
// granted the filtered network (slirp4netns, the routes, the Node supervisor), as a networked
// command pays for it.
// Usage: npm run build && node scripts/bench-sandbox.mjs [--runs N] [--network] [--json]
import { mkdtempSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const root = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const json = args.includes("--json");
const runsIndex = args.indexOf("--runs");
const runs = runsIndex >= 0 ? Number(args[runsIndex + 1]) : 200;
const withNetwork = args.includes("--network");

const { runInProcessGroup, scrubbedEnv } = await import(join(root, "dist/tools/process-group.js"));
const { detectSandbox } = await import(join(root, "dist/sandbox/detect.js"));
const { sandboxLaunch } = await import(join(root, "dist/sandbox/wrap.js"));
const { defaultSandboxLimits } = await import(join(root, "dist/sandbox/types.js"));
const { processCgroup } = await import(join(root, "dist/sandbox/process-cgroup.js"));
const { mercuryHome } = await import(join(root, "dist/config/paths.js"));

const status = detectSandbox();
if (!status.available) {
  console.error(`no sandbox to measure: ${status.reason}. Fix: ${status.fix}`);
  process.exit(1);
}
const workspace = mkdtempSync("/var/tmp/mercury-bench-sandbox-");
const policy = {
  workspace,
  cwd: workspace,
  userHome: homedir(),
  mercuryHome: mercuryHome(),
  network: false,
  limits: defaultSandboxLimits,
};
const base = {
  cwd: workspace,
  timeoutMs: 30_000,
  killGraceMs: 500,
  signal: new AbortController().signal,
  env: scrubbedEnv(),
};

async function once(sandboxed) {
  const started = performance.now();
  let launch;
  let cgroup = null;
  if (sandboxed) {
    launch = sandboxLaunch("true", { ...policy, network: sandboxed === "network" }, status);
    cgroup =
      status.kind === "bubblewrap"
        ? processCgroup({
            processes: defaultSandboxLimits.processes,
            totalMemoryBytes: defaultSandboxLimits.totalMemoryBytes,
          })
        : null;
    if (cgroup) launch = cgroup.wrap(launch);
  }
  const run = await runInProcessGroup("true", launch ? { ...base, launch } : base);
  if (cgroup) {
    const leftover = await cgroup.release();
    if (leftover) throw new Error(leftover);
  }
  const elapsed = performance.now() - started;
  if (run.exitCode !== 0) throw new Error(`true exited ${run.exitCode}: ${run.output}`);
  return elapsed;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// Warm-up: the first spawns pay for loading programs into the page cache.
for (let index = 0; index < 5; index++) {
  await once("plain");
  await once("sandboxed");
  if (withNetwork) await once("network");
}
const networked = [];
const plain = [];
const sandboxed = [];
const bwrapOnly = [];
for (let index = 0; index < runs; index++) {
  plain.push(await once("plain"));
  sandboxed.push(await once("sandboxed"));
  if (status.kind === "bubblewrap") bwrapOnly.push(await once("bwrap"));
  if (withNetwork) networked.push(await once("network"));
}
rmSync(workspace, { recursive: true, force: true });

const round = (value) => Math.round(value * 10) / 10;
const result = {
  runs,
  kind: status.kind,
  plain: { p50: round(percentile(plain, 50)), p95: round(percentile(plain, 95)) },
  sandboxed: { p50: round(percentile(sandboxed, 50)), p95: round(percentile(sandboxed, 95)) },
  bwrapMinimal:
    bwrapOnly.length > 0
      ? { p50: round(percentile(bwrapOnly, 50)), p95: round(percentile(bwrapOnly, 95)) }
      : null,
};
if (networked.length > 0) {
  result.networked = { p50: round(percentile(networked, 50)), p95: round(percentile(networked, 95)) };
  result.networkOverheadP50Ms = round(result.networked.p50 - result.sandboxed.p50);
}
result.overheadP50Ms = round(result.sandboxed.p50 - result.plain.p50);
result.overheadP95Ms = round(result.sandboxed.p95 - result.plain.p95);
result.ratioP50 = round(result.sandboxed.p50 / result.plain.p50);
if (json) console.log(JSON.stringify(result));
else {
  console.log(`sandbox overhead per command (${runs} runs each, interleaved, ${status.kind})`);
  console.log(`  plain spawn   p50 ${result.plain.p50} ms  p95 ${result.plain.p95} ms`);
  console.log(`  sandboxed     p50 ${result.sandboxed.p50} ms  p95 ${result.sandboxed.p95} ms`);
  if (result.bwrapMinimal)
    console.log(
      `  bwrap minimal p50 ${result.bwrapMinimal.p50} ms  p95 ${result.bwrapMinimal.p95} ms  (bwrap --ro-bind / / true)`,
    );
  if (result.networked)
    console.log(
      `  networked     p50 ${result.networked.p50} ms  p95 ${result.networked.p95} ms  (filtered network: +${result.networkOverheadP50Ms} ms at p50 over sandboxed without network)`,
    );
  console.log(
    `  overhead      p50 +${result.overheadP50Ms} ms (${result.ratioP50}x)  p95 +${result.overheadP95Ms} ms  (goal: <= 30 ms at p50)`,
  );
}
