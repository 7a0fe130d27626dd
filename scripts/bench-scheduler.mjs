// Scheduler wake-up accuracy: fire time minus due time over N simulated jobs, through the real
// Scheduler (sleep until the next due time, claim in SQLite) against a baseline in the same run:
// the same tick polled at a fixed interval (what a setInterval heartbeat does).
// Usage: npm run build && node scripts/bench-scheduler.mjs [--jobs 1000] [--seconds 20] [--poll-ms 1000]
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../dist/app/logger.js";
import { JobStore } from "../dist/scheduler/jobs.js";
import { Scheduler } from "../dist/scheduler/service.js";
import { tick } from "../dist/scheduler/tick.js";
import { defaultGraceMs } from "../dist/scheduler/timing.js";
import { openDatabase } from "../dist/storage/database.js";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const jobs = option("jobs", 1000);
const seconds = option("seconds", 20);
const pollMs = option("poll-ms", 1000);
const clock = { now: () => new Date() };

function seed(label) {
  const database = openDatabase(join(mkdtempSync(join(tmpdir(), `mercury-bench-${label}-`)), "mercury.db"));
  const store = new JobStore(database, clock);
  const start = Date.now() + 1000;
  // Deterministic spread: one-shot jobs at irregular millisecond offsets across the window.
  for (let i = 0; i < jobs; i++) {
    const atMs = start + Math.floor(((i * 7919) % jobs) * ((seconds * 1000) / jobs)) + (i % 997);
    const spec = { kind: "once", atMs };
    store.create({
      name: `job ${i}`,
      spec,
      task: "noop",
      owner: "owner",
      workspace: "/tmp",
      delivery: "none",
      silent: true,
      graceMs: defaultGraceMs(spec, Date.now()),
      budget: { runTokens: null, runUsd: null, dayTokens: null, dayUsd: null },
      permissions: null,
      nextDueMs: atMs,
      createdBy: "bench",
    });
  }
  return { database, store, lastDue: start + seconds * 1000 + 1000 };
}

function recorder(store, fired) {
  return {
    isActive: () => false,
    jobActive: () => false,
    start: async (_job, run) => {
      fired.push(Date.now() - run.dueMs);
      store.startRun(run.id, `bench-${run.id}`);
    },
    stopAll: async () => undefined,
  };
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function waitUntil(check) {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 100));
}

async function measureScheduler() {
  const { database, store } = seed("scheduler");
  const fired = [];
  const scheduler = new Scheduler({
    store,
    runner: recorder(store, fired),
    clock,
    logger: createLogger(tmpdir(), "silent", { redact: (text) => text }),
    maxSleepMs: 30_000,
  });
  scheduler.start();
  await waitUntil(() => fired.length >= jobs);
  await scheduler.stop("bench done");
  database.close();
  return fired;
}

async function measurePolling() {
  const { database, store } = seed("polling");
  const fired = [];
  const timer = setInterval(() => {
    for (const { run } of tick(store, Date.now()).fire) {
      fired.push(Date.now() - run.dueMs);
    }
  }, pollMs);
  await waitUntil(() => fired.length >= jobs);
  clearInterval(timer);
  database.close();
  return fired;
}

const ours = await measureScheduler();
const baseline = await measurePolling();
const early = ours.filter((late) => late < 0).length + baseline.filter((late) => late < 0).length;
const row = (name, values) =>
  `| ${name} | ${percentile(values, 50)} ms | ${percentile(values, 95)} ms | ${Math.max(...values)} ms | ${values.filter((v) => v < 0).length} |`;
console.log(
  `jobs ${jobs}, window ${seconds} s, load average ${loadavg()[0].toFixed(2)}, node ${process.version}`,
);
console.log("| scheduler | p50 | p95 | max | early |");
console.log("|---|---|---|---|---|");
console.log(row("sleep until next due (ours)", ours));
console.log(row(`fixed ${pollMs} ms polling (baseline)`, baseline));
console.log(
  `p95 ratio baseline/ours: ${(percentile(baseline, 95) / Math.max(1, percentile(ours, 95))).toFixed(1)}x; fired early: ${early}`,
);
