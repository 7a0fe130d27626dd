import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { latestTask, query } from "../helpers/ledger.js";
import { until } from "../helpers/processes.js";
import { startTask } from "../helpers/task-runs.js";

const server = useFakeServers();
const claims = (n: number) => Array.from({ length: n }, () => ({ text: "Done. All tests pass." }));

/**
 * A project whose check passes the first time and, just before it exits, waits for `.markers/go`: the
 * harness freezes Mercury (SIGSTOP) first, lets the check exit, waits until every child of Mercury is
 * gone or a zombie (the check exited; Mercury, frozen, has stored nothing), then kills it with
 * SIGKILL. A later run of the check fails once `.markers/verdict-fail` exists, so a pass claimed
 * without a rerun shows.
 */
function projectWithHeldCheck() {
  const script = "check.sh";
  const cwd = gitProject({
    "package.json": JSON.stringify({ name: "p", scripts: { test: `sh .markers/${script}` } }),
    ".gitignore": ".markers/\n",
  });
  const markers = join(cwd, ".markers");
  mkdirSync(markers, { recursive: true });
  writeFileSync(
    join(markers, script),
    [
      "n=$(cat .markers/count 2>/dev/null || echo 0)",
      "n=$((n + 1))",
      "echo $n > .markers/count",
      'if [ -e .markers/verdict-fail ]; then echo "check: the feature is broken"; exit 1; fi',
      'echo "check passed"',
      // The first run waits at its very end for the harness to freeze Mercury, then exits.
      'if [ "$n" = 1 ]; then touch .markers/exiting; while [ ! -e .markers/go ]; do sleep 0.05; done; fi',
      "exit 0",
      "",
    ].join("\n"),
  );
  return { cwd, runs: () => Number(readFileSync(join(markers, "count"), "utf8").trim()) };
}

/** Children of `pid` that still run (not zombies): a frozen parent cannot reap the ones that exited. */
function liveChildren(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // ended while we looked
    }
    const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(parent) === pid && state !== "Z" && state !== "X") found.push(Number(entry));
  }
  return found;
}

describe("kill -9 after the check exits, before its result is stored (built binary)", {
  timeout: 300_000,
}, () => {
  it("the resumed run reruns the check instead of claiming the pass it never stored", async () => {
    const project = projectWithHeldCheck();
    const { cwd } = project;
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "feature.txt", content: "feature\n" } }] },
        ...claims(1),
      ],
    });
    const { home, run } = startTask("add the feature", cwd, fake.url);
    try {
      await until(() => existsSync(join(cwd, ".markers", "exiting")), "the check to reach its end");
      const pid = run.child.pid;
      if (pid === undefined) throw new Error("the run has no pid");
      process.kill(pid, "SIGSTOP");
      writeFileSync(join(cwd, ".markers", "go"), "");
      await until(() => liveChildren(pid).length === 0, "the check to exit under the frozen Mercury");
      run.child.kill("SIGKILL");
      await run.exited;
      const task = latestTask(home);
      expect(task.status).toBe("running");
      // The kill came before the result was stored: no record of the pass exists.
      const stored = query<{ evidence: string } | undefined>(
        home,
        "SELECT evidence FROM task_evidence WHERE task_id = ?",
        task.id,
      );
      const verifications: unknown[] = stored ? JSON.parse(stored.evidence).verifications : [];
      expect(verifications).toEqual([]);
      expect(project.runs()).toBe(1);

      // The work is broken now; whatever the first run's output said, only a rerun can know.
      writeFileSync(join(cwd, ".markers", "verdict-fail"), "");
      fake.push(...claims(4));
      const resumed = await runCli(["run", "continue", "--session", task.session_id, "--json", "--yes"], {
        home,
        cwd,
        env: providerEnv(fake.url),
      });
      const report = JSON.parse(resumed.stdout);
      expect(report.taskId).toBe(task.id);
      expect(report.outcome).toBe("failed");
      expect(project.runs()).toBeGreaterThanOrEqual(2);
      expect(report.verification.at(-1)).toMatchObject({ exitCode: 1 });
    } finally {
      if (run.child.exitCode === null) run.child.kill("SIGKILL");
    }
  });
});
