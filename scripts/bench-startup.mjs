#!/usr/bin/env node
// Start-up cost of the commands people run most, side by side with a bare `node -e 0` in the same run
// (these machines are shared: only ratios against the same-run baseline mean anything, and CPU time
// is distorted less by load than wall time).
//   CPU (user+sys) of --version, --help, status and stop with no daemon running, per process, from the
//     rusage `wait4` returns for each child: the kernel's own accounting of the child's run time, to the
//     microsecond. (/usr/bin/time prints it with 10 ms resolution, which on a 40 ms process turns 1.25×
//     into 1.33×.) A short Python helper, written below, forks, execs and reaps every case; Node cannot
//     read a child's rusage. Cases are interleaved so a burst of load hits every case alike.
//   `mercury run` until its first model request: the wall time from spawning the process to the
//     request reaching a loopback server, and the process's own CPU time at that moment (a 10-line
//     preload, written below, wraps `fetch` and records `process.cpuUsage()` on the first call);
//   `mercury start` until the daemon answers on its socket (wall; `start` returns at that moment).
// With --before DIR (a checkout of an earlier commit, built), every case also runs that build's
// dist/cli.js, interleaved, so the change is measured against itself under the same load.
// Needs python3 (already required to build better-sqlite3).
// Usage: npm run build && node scripts/bench-startup.mjs [--runs N] [--before DIR] [--json]
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const json = args.includes("--json");
const option = (name) => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};
const runs = Number(option("--runs") ?? 9);
const beforeDirectory = option("--before");
const builds = { now: join(root, "dist/cli.js") };
if (beforeDirectory) builds.before = join(resolve(beforeDirectory), "dist/cli.js");
for (const cli of Object.values(builds))
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build it first`);

const home = mkdtempSync(join(tmpdir(), "mercury-bench-"));
const firstRequestFile = join(home, "first-request.json");
const preload = join(home, "first-request.cjs");
writeFileSync(
  preload,
  `const original = globalThis.fetch;
let first = true;
globalThis.fetch = function (...args) {
  if (first) {
    first = false;
    const usage = process.cpuUsage();
    require("node:fs").writeFileSync(${JSON.stringify(firstRequestFile)}, JSON.stringify({ cpuMs: (usage.user + usage.system) / 1000 }));
  }
  return original.apply(this, args);
};
`,
);
const loadAtStart = loadavg().map((value) => Math.round(value * 10) / 10);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
const round = (value) => Math.round(value * 100) / 100;

const rusageHelper = join(home, "rusage.py");
writeFileSync(
  rusageHelper,
  `import json, os, sys
cases = json.load(sys.stdin)
samples = {name: [] for name in cases["commands"]}
null = os.open(os.devnull, os.O_RDWR)
for _ in range(cases["runs"]):
    for name, argv in cases["commands"].items():
        pid = os.fork()
        if pid == 0:
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.execv(argv[0], argv)
        _, status, usage = os.wait4(pid, 0)
        if os.WIFSIGNALED(status):
            sys.exit(f"{name} was killed by signal {os.WTERMSIG(status)}")
        samples[name].append((usage.ru_utime + usage.ru_stime) * 1000)
json.dump(samples, sys.stdout)
`,
);

/** CPU milliseconds (user + system) of each command, per process, `runs` interleaved rounds. */
function cpuSamplesOf(commands, runCount) {
  const result = spawnSync("python3", [rusageHelper], {
    input: JSON.stringify({ commands, runs: runCount }),
    env: { ...process.env, MERCURY_HOME: home },
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.error) throw new Error(`python3 is needed to read each child's rusage: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`measuring CPU failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

function nodeWallMs() {
  const began = performance.now();
  spawnSync(process.execPath, ["-e", "0"]);
  return performance.now() - began;
}

// --- CPU of the light commands -------------------------------------------------------------------
const cpuCases = { "node -e 0 (baseline)": [process.execPath, "-e", "0"] };
for (const [build, cli] of Object.entries(builds)) {
  const suffix = build === "now" ? "" : ` [${build}]`;
  cpuCases[`mercury --version${suffix}`] = [process.execPath, cli, "--version"];
  cpuCases[`mercury --help${suffix}`] = [process.execPath, cli, "--help"];
  cpuCases[`mercury status (stopped)${suffix}`] = [process.execPath, cli, "status"];
  cpuCases[`mercury stop (stopped)${suffix}`] = [process.execPath, cli, "stop"];
}
// The light cases take ~50 ms each, so they get more rounds than the others: a median of many.
const cpuSamples = cpuSamplesOf(cpuCases, Math.max(runs, 21));
const cpuBaseline = median(cpuSamples["node -e 0 (baseline)"]);
const cpu = Object.fromEntries(
  Object.entries(cpuSamples).map(([name, values]) => [
    name,
    {
      medianMs: round(median(values)),
      minMs: round(Math.min(...values)),
      ratio: round(median(values) / cpuBaseline),
    },
  ]),
);

// --- mercury run → first model request ----------------------------------------------------------
/** A loopback OpenAI-compatible endpoint that stamps when each request arrives and answers at once. */
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
const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;

async function firstRequest(cli) {
  arrivedAt = 0;
  rmSync(firstRequestFile, { force: true });
  const spawnedAt = performance.timeOrigin + performance.now();
  const child = spawn(process.execPath, ["-r", preload, cli, "run", "hi", "--json"], {
    env: {
      ...process.env,
      MERCURY_HOME: home,
      MERCURY_PROVIDER: "openai-compatible",
      MERCURY_BASE_URL: baseUrl,
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
  const { cpuMs: cpuAtRequest } = JSON.parse(readFileSync(firstRequestFile, "utf8"));
  return { wallMs: arrivedAt - spawnedAt, cpuMs: cpuAtRequest };
}

const runSamples = Object.fromEntries(Object.keys(builds).map((build) => [build, { wall: [], cpu: [] }]));
const nodeWall = [];
for (let run = 0; run < runs; run++) {
  nodeWall.push(nodeWallMs());
  for (const [build, cli] of Object.entries(builds)) {
    const sample = await firstRequest(cli);
    runSamples[build].wall.push(sample.wallMs);
    runSamples[build].cpu.push(sample.cpuMs);
  }
}
await new Promise((done) => server.close(done));

// --- mercury start → the daemon answers ---------------------------------------------------------
function startStop(cli) {
  const env = { ...process.env, MERCURY_HOME: home };
  const began = performance.now();
  const started = spawnSync(process.execPath, [cli, "start"], { env });
  const startMs = performance.now() - began;
  if (started.status !== 0) throw new Error(`mercury start failed: ${started.stderr}`);
  const stopped = spawnSync(process.execPath, [cli, "stop"], { env });
  if (stopped.status !== 0) throw new Error(`mercury stop failed: ${stopped.stderr}`);
  return startMs;
}
const startSamples = Object.fromEntries(Object.keys(builds).map((build) => [build, []]));
for (let run = 0; run < Math.min(runs, 7); run++) {
  nodeWall.push(nodeWallMs());
  for (const [build, cli] of Object.entries(builds)) startSamples[build].push(startStop(cli));
}
rmSync(home, { recursive: true, force: true });

const nodeWallMedian = median(nodeWall);
const report = {
  runs,
  node: process.version,
  loadAverage: { atStart: loadAtStart, atEnd: loadavg().map((value) => Math.round(value * 10) / 10) },
  cpu,
  nodeWallMs: Math.round(nodeWallMedian),
  runFirstRequest: Object.fromEntries(
    Object.entries(runSamples).map(([build, { wall, cpu: cpuValues }]) => [
      build,
      {
        wallMs: Math.round(median(wall)),
        wallRatio: round(median(wall) / nodeWallMedian),
        wallMaxMs: Math.round(Math.max(...wall)),
        // On a shared machine the fastest run is the nearest to an idle one: reported beside the median.
        wallMinMs: Math.round(Math.min(...wall)),
        cpuMs: Math.round(median(cpuValues)),
        cpuMinMs: Math.round(Math.min(...cpuValues)),
        cpuRatio: round(median(cpuValues) / cpuBaseline),
      },
    ]),
  ),
  startToReady: Object.fromEntries(
    Object.entries(startSamples).map(([build, values]) => [
      build,
      { wallMs: Math.round(median(values)), wallRatio: round(median(values) / nodeWallMedian) },
    ]),
  ),
};
if (json) process.stdout.write(`${JSON.stringify(report)}\n`);
else {
  console.log(
    `load average ${report.loadAverage.atStart.join(" ")} at start, ${report.loadAverage.atEnd.join(" ")} at end; Node ${report.node}; ${runs} interleaved runs`,
  );
  console.log("CPU per process (median, user+sys) against node -e 0 in the same run:");
  for (const [name, { medianMs, minMs, ratio }] of Object.entries(cpu))
    console.log(
      `  ${name.padEnd(36)} ${medianMs.toFixed(1).padStart(6)} ms (min ${minMs.toFixed(1)})  ${ratio.toFixed(2)}×`,
    );
  console.log(`node -e 0 wall: ${report.nodeWallMs} ms`);
  for (const [build, row] of Object.entries(report.runFirstRequest))
    console.log(
      `mercury run → first model request [${build}]: wall ${row.wallMs} ms (${row.wallRatio}× node wall, min ${row.wallMinMs}, max ${row.wallMaxMs}), CPU ${row.cpuMs} ms (${row.cpuRatio}× node CPU, min ${row.cpuMinMs})`,
    );
  for (const [build, row] of Object.entries(report.startToReady))
    console.log(`mercury start → daemon answers [${build}]: ${row.wallMs} ms (${row.wallRatio}× node wall)`);
}
