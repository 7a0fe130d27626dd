#!/usr/bin/env node
// Start-up cost of the commands people run most, side by side with a bare `node -e 0` in the same run
// (these machines are noisy: only ratios against the same-run baseline mean anything).
//   CPU (user+sys, from /usr/bin/time) of --version, --help, status and stop with no daemon running;
//   wall time of `start` until the daemon answers, and of `stop`;
//   how long after the process starts `mercury run` sends its first model request (a loopback server
//   stamps the arrival).
// Usage: npm run build && node scripts/bench-startup.mjs [--runs N] [--json]
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const cli = join(root, "dist/cli.js");
const args = process.argv.slice(2);
const json = args.includes("--json");
const runsIndex = args.indexOf("--runs");
const runs = runsIndex >= 0 ? Number(args[runsIndex + 1]) : 15;
const home = mkdtempSync(join(tmpdir(), "mercury-bench-"));
const timing = join(home, "time.txt");

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** CPU milliseconds (user + system) of one process, measured by /usr/bin/time. */
function cpuMs(commandArgs, env = {}) {
  const result = spawnSync("/usr/bin/time", ["-f", "%U %S", "-o", timing, process.execPath, ...commandArgs], {
    env: { ...process.env, MERCURY_HOME: home, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (result.error) throw new Error(`/usr/bin/time is needed: ${result.error.message}`);
  const [user, system] = readFileSync(timing, "utf8").trim().split(/\s+/).slice(-2).map(Number);
  return Math.round((user + system) * 1000);
}

const cases = {
  "node -e 0 (baseline)": ["-e", "0"],
  "mercury --version": [cli, "--version"],
  "mercury --help": [cli, "--help"],
  "mercury status (stopped)": [cli, "status"],
  "mercury stop (stopped)": [cli, "stop"],
};
const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
// Interleaved, so a burst of load hits every case alike.
for (let run = 0; run < runs; run++)
  for (const [name, command] of Object.entries(cases)) samples[name].push(cpuMs(command));
const baseline = median(samples["node -e 0 (baseline)"]);
const cpu = Object.fromEntries(
  Object.entries(samples).map(([name, values]) => [
    name,
    { medianMs: median(values), ratio: Math.round((median(values) / baseline) * 100) / 100 },
  ]),
);

/** Wall time of `start` until the daemon answers, then of `stop`. */
function daemonTimes() {
  const starts = [];
  const stops = [];
  for (let run = 0; run < Math.min(runs, 5); run++) {
    let began = performance.now();
    const started = spawnSync(process.execPath, [cli, "start"], {
      env: { ...process.env, MERCURY_HOME: home },
    });
    if (started.status !== 0) throw new Error(`mercury start failed: ${started.stderr}`);
    starts.push(performance.now() - began);
    began = performance.now();
    const stopped = spawnSync(process.execPath, [cli, "stop"], {
      env: { ...process.env, MERCURY_HOME: home },
    });
    if (stopped.status !== 0) throw new Error(`mercury stop failed: ${stopped.stderr}`);
    stops.push(performance.now() - began);
  }
  return { startToReadyMs: Math.round(median(starts)), stopMs: Math.round(median(stops)) };
}

/** A loopback OpenAI-compatible endpoint that stamps when each request arrives and answers at once. */
async function firstRequestDelays() {
  let arrivedAt = 0;
  const server = createServer((request, response) => {
    arrivedAt = performance.timeOrigin + performance.now();
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (body) => response.write(`data: ${JSON.stringify(body)}\n\n`);
      const base = { id: "bench", object: "chat.completion.chunk", created: 0, model: "bench" };
      chunk({
        ...base,
        choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: null }],
      });
      chunk({
        ...base,
        choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
      response.end("data: [DONE]\n\n");
    });
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  const delays = [];
  for (let run = 0; run < Math.min(runs, 8); run++) {
    arrivedAt = 0;
    const spawnedAt = performance.timeOrigin + performance.now();
    const child = spawn(process.execPath, [cli, "run", "hi", "--json"], {
      env: {
        ...process.env,
        MERCURY_HOME: home,
        MERCURY_PROVIDER: "openai-compatible",
        MERCURY_BASE_URL: url,
        MERCURY_MODEL: "bench",
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (data) => {
      stderr += data;
    });
    const code = await new Promise((done) => child.on("close", done));
    if (code !== 0 || arrivedAt === 0) throw new Error(`mercury run failed (${code}): ${stderr}`);
    delays.push(arrivedAt - spawnedAt);
  }
  await new Promise((done) => server.close(done));
  return { medianMs: Math.round(median(delays)) };
}

const baselineWall = [];
for (let run = 0; run < 5; run++) {
  const began = performance.now();
  spawnSync(process.execPath, ["-e", "0"]);
  baselineWall.push(performance.now() - began);
}
const daemon = daemonTimes();
const firstRequest = await firstRequestDelays();
rmSync(home, { recursive: true, force: true });
const report = {
  runs,
  cpu,
  nodeWallMs: Math.round(median(baselineWall)),
  daemon,
  runFirstRequestMs: firstRequest.medianMs,
};
if (json) process.stdout.write(`${JSON.stringify(report)}\n`);
else {
  console.log(`CPU per process (median of ${runs}, user+sys), against node -e 0 in the same run:`);
  for (const [name, { medianMs, ratio }] of Object.entries(cpu))
    console.log(`  ${name.padEnd(26)} ${String(medianMs).padStart(5)} ms  ${ratio}×`);
  console.log(`node -e 0 wall: ${report.nodeWallMs} ms`);
  console.log(
    `start → daemon answers: ${daemon.startToReadyMs} ms; stop: ${daemon.stopMs} ms (wall, median)`,
  );
  console.log(
    `mercury run → first model request: ${report.runFirstRequestMs} ms after the process started (median)`,
  );
}
