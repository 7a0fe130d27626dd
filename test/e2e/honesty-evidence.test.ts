import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { query } from "../helpers/ledger.js";
import { runTask } from "../helpers/task-runs.js";

const server = useFakeServers();

const failingSuite = { "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) };
const claims = (n: number) => Array.from({ length: n }, () => ({ text: "Fixed. All tests pass." }));

describe("evidence, not narration (built binary, loopback model)", { timeout: 300_000 }, () => {
  it("'continue' after a task failed its checks resumes that task: never done without a passing run", async () => {
    const cwd = gitProject(failingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "fix.txt", content: "fix\n" } }] },
        ...claims(3),
      ],
    });
    const { home, result: first, report: failed } = await runTask("fix the suite", cwd, fake.url);
    expect(failed.outcome).toBe("failed");
    expect(first.code).toBe(1);

    // The model now only claims success; the continued task is still judged on its change.
    fake.push(...claims(3));
    const again = await runCli(["run", "--continue", "continue", "--json", "--yes"], {
      home,
      cwd,
      env: providerEnv(fake.url),
    });
    const report = JSON.parse(again.stdout);
    expect(report).toMatchObject({ taskId: failed.taskId, outcome: "failed" });
    expect(again.code).toBe(1);
    expect(report.filesChanged).toEqual([{ path: "fix.txt", added: 1, removed: 0 }]);
    expect(report.verification.at(-1)).toEqual({ command: "npm test", exitCode: 1 });
    expect(query(home, "SELECT status FROM tasks WHERE id = ?", failed.taskId)).toEqual({ status: "failed" });
  });

  it("a model that ran a failing suite and claims it passes: not completed, and the answer carries the real result", async () => {
    const cwd = gitProject(failingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { text: "All tests pass." },
      ],
    });
    const { report } = await runTask("check the tests", cwd, fake.url);
    expect(report.outcome).toBe("responded");
    expect(report.verification).toEqual([{ command: "npm test", exitCode: 1 }]);
    expect(report.reason).toBe(
      "nothing was changed; the last verification run `npm test` exited 1, whatever the answer says",
    );
  });

  it("an edit after the last passing run makes that run stale: the gate runs the check again", async () => {
    const cwd = gitProject({
      "package.json": JSON.stringify({ name: "p", scripts: { test: "sh check.sh" } }),
      "check.sh": "grep -q good state.txt\n",
      "state.txt": "start\n",
    });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "state.txt", content: "good\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "state.txt", content: "broken\n" } }] },
        ...claims(3),
      ],
    });
    const { report } = await runTask("make it good", cwd, fake.url);
    expect(report.outcome).toBe("failed");
    expect(report.verification).toEqual([
      { command: "npm test", exitCode: 0 },
      { command: "npm test", exitCode: 1 },
    ]);
  });

  it("without --yes the gate's check is refused: paused with the refusal, never completed", async () => {
    const cwd = gitProject(failingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
        { text: "Done, all tests pass." },
      ],
    });
    const { result, report } = await runTask("write a.txt", cwd, fake.url, { yes: false });
    expect(report.outcome).toBe("paused");
    expect(result.code).toBe(3);
    expect(report.reason).toContain("the verification `npm test` was refused");
    expect(report.verification).toEqual([]);
  });

  it("a failure line buried in long output: judged by the exit code, and the fix round shows the model that line", async () => {
    const cwd = gitProject({
      "package.json": JSON.stringify({ name: "p", scripts: { test: "sh check.sh" } }),
      "check.sh":
        "seq 1 2000\necho 'FAIL: the real failure'\nseq 1 20000\necho 'summary: see above'\nexit 1\n",
    });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
        ...claims(3),
      ],
    });
    const { report } = await runTask("write a.txt", cwd, fake.url);
    expect(report.outcome).toBe("failed");
    expect(report.verification.at(-1)).toEqual({ command: "npm test", exitCode: 1 });
    expect(report.reason).toContain("`npm test` exited 1");
    // The fix round shows the model the failure printed first, not only the summary at the end.
    const fixRequest = JSON.stringify(fake.chatRequests()[2]?.body);
    expect(fixRequest).toContain("FAIL: the real failure");
    expect(fixRequest).toContain("summary: see above");
  });

  it("a verification that hangs is stopped by the watchdog: paused as stalled, not completed", async () => {
    const cwd = gitProject({
      "package.json": JSON.stringify({ name: "p", scripts: { test: "sleep 1000" } }),
    });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
        { text: "Done, all tests pass." },
      ],
    });
    const { result, report } = await runTask("write a.txt", cwd, fake.url, {
      env: { MERCURY_STALL_SOFT_MS: "300", MERCURY_STALL_HARD_MS: "1500" },
    });
    expect(report.outcome).toBe("paused");
    expect(result.code).toBe(3);
    expect(report.reason).toMatch(/^stalled/);
    // The run the watchdog stopped has no result, so none is recorded (session 12): never a pass, and
    // never a failure that a later "continue" would read over files that pass; that run checks again.
    expect(report.verification).toEqual([]);
  });

  it("updating a snapshot of an existing test to make it pass is not completed", async () => {
    const cwd = gitProject({
      "package.json": JSON.stringify({ name: "p", scripts: { test: "node run.js" } }),
      "run.js":
        "process.exit(require('fs').readFileSync('out.txt','utf8') === require('fs').readFileSync('__snapshots__/out.snap','utf8') ? 0 : 1)\n",
      "out.txt": "right\n",
    });
    mkdirSync(join(cwd, "__snapshots__"));
    writeFileSync(join(cwd, "__snapshots__", "out.snap"), "right\n");
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "out.txt", content: "wrong\n" } }] },
        {
          toolCalls: [{ name: "write_file", input: { path: "__snapshots__/out.snap", content: "wrong\n" } }],
        },
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { text: "Done, the tests pass." },
      ],
    });
    const { report } = await runTask("change out.txt", cwd, fake.url);
    expect(report.outcome).toBe("paused");
    expect(report.checksChanged).toEqual([
      { path: "__snapshots__/out.snap", change: "test that existed before the task modified" },
    ]);
  });

  it("a task in a subfolder of a project is not 'completed, no checks to run here'", async () => {
    const root = gitProject(failingSuite);
    const cwd = join(root, "docs");
    mkdirSync(cwd);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "notes.md", content: "notes\n" } }] },
        { text: "Done." },
      ],
    });
    const { result, report } = await runTask("write notes", cwd, fake.url);
    expect(report.outcome).not.toBe("completed");
    expect(result.code).not.toBe(0);
  });
});
