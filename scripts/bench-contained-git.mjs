#!/usr/bin/env node
// Milliseconds per contained git call, per change-tracker baseline and per change report, on a 50-file
// repository in a temporary folder (BENCHMARKS.md, "Mercury's own git calls", session 12). Quiet machine;
// compare two builds by running both in turn: node scripts/bench-contained-git.mjs DIST_DIR [N]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const dist = resolve(process.argv[2] ?? new URL("../dist", import.meta.url).pathname);
const N = Number(process.argv[3] ?? 20);
const { runContainedGit } = await import(join(dist, "agent/completion/contained-git.js"));
const { createChangeTracker } = await import(join(dist, "agent/completion/changes.js"));
const root = mkdtempSync(join(tmpdir(), "mercury-bench-git-"));
const home = join(root, "home");
const repo = join(root, "repo");
mkdirSync(join(home, ".mercury"), { recursive: true });
mkdirSync(repo);
const git = (...args) => execFileSync("git", args, { cwd: repo, stdio: "pipe" });
git("init", "-q");
for (let i = 0; i < 50; i++) writeFileSync(join(repo, `f${i}.txt`), `line ${i}\n`);
writeFileSync(join(repo, ".gitignore"), "build/\n");
mkdirSync(join(repo, "build"));
writeFileSync(join(repo, "build/out.js"), "x\n");
git("add", "-A");
git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init");
const containment = { userHome: home, mercuryHome: join(home, ".mercury") };
async function time(label, body) {
  const start = performance.now();
  for (let i = 0; i < N; i++) await body(i);
  const ms = (performance.now() - start) / N;
  console.log(`${label}: ${ms.toFixed(1)} ms`);
  return ms;
}
const results = {};
for (let round = 0; round < 2; round++) {
  results.call = await time("contained git status", async () => {
    const r = await runContainedGit(["status", "--porcelain"], { top: repo, containment });
    if (r.code !== 0) throw new Error(r.stderr);
  });
  const tracker = createChangeTracker(repo, undefined, { containment });
  results.baseline = await time("baseline (begin)", async () => {
    await createChangeTracker(repo, undefined, { containment }).begin();
  });
  await tracker.begin();
  results.report = await time("change report", async (i) => {
    writeFileSync(join(repo, "f1.txt"), `changed ${round}-${i}\n`);
    const report = await tracker.report();
    if (!report.confirmed || report.files.length !== 1)
      throw new Error(`round ${round} i ${i} ${JSON.stringify(report)}`);
  });
}
rmSync(root, { recursive: true, force: true });
console.log(JSON.stringify(results));
