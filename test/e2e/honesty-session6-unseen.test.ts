import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { latestTask } from "../helpers/ledger.js";
import { until } from "../helpers/processes.js";
import { continueTask, runTask, startTask } from "../helpers/task-runs.js";

const server = useFakeServers();
const giveUp = Array.from({ length: 6 }, () => ({ text: "Done, all tests pass." }));

/** The check reads `<folder>/state.txt`, a file the change picture skips (git-ignored, or a skipped folder). */
function suiteReading(cwd: string, folder: string): string {
  mkdirSync(join(cwd, folder, ".bin"), { recursive: true });
  const state = join(cwd, folder, ".bin", "state.txt");
  writeFileSync(state, "good\n");
  return state;
}

/**
 * A task changes a file, runs the passing check, and is killed while the model answers; then a file
 * the check depends on but the change picture skips is broken. "continue" must not reuse the old pass.
 */
async function killAfterPassThenBreak(cwd: string, state: string) {
  const fake = await server({
    replies: [
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
      { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
      { hang: true, text: ["All tests ", "pass"] },
    ],
  });
  const { home, run } = startTask("write a.txt", cwd, fake.url);
  await until(() => fake.chatRequests().length >= 3, "the third model request");
  run.child.kill("SIGKILL");
  await run.exited;
  const task = latestTask(home);
  expect(task.status).toBe("running");
  writeFileSync(state, "bad\n");
  fake.push(...giveUp);
  const { result, report } = await continueTask(home, cwd, task.session_id, fake.url, ["--yes"]);
  return { task, result, report };
}

describe("files the change picture skips still decide the check (built binary, kill -9)", {
  timeout: 300_000,
}, () => {
  it("a git-ignored file the check reads, broken after the passing run: 'continue' reruns the check", async () => {
    const cwd = gitProject({
      "package.json": JSON.stringify({ name: "p", scripts: { test: "sh check.sh" } }),
      "check.sh": "grep -q good node_modules/.bin/state.txt\n",
      ".gitignore": "node_modules/\n",
    });
    const state = suiteReading(cwd, "node_modules");
    const { task, result, report } = await killAfterPassThenBreak(cwd, state);
    expect(report).toMatchObject({ taskId: task.id, outcome: "failed" });
    expect(result.code).toBe(1);
    expect(report.verification.at(-1)).toEqual({ command: "npm test", exitCode: 1 });
    // Ignored files are not the task's changes.
    expect(report.filesChanged).toEqual([{ path: "a.txt", added: 1, removed: 0 }]);
  });

  it("outside git, a file in a skipped folder (dist/) the check reads: 'continue' reruns the check", async () => {
    const { workspace: cwd } = makeHome();
    writeFileSync(join(cwd, "package.json"), JSON.stringify({ name: "p", scripts: { test: "sh check.sh" } }));
    writeFileSync(join(cwd, "check.sh"), "grep -q good dist/.bin/state.txt\n");
    const state = suiteReading(cwd, "dist");
    const { task, result, report } = await killAfterPassThenBreak(cwd, state);
    expect(report).toMatchObject({ taskId: task.id, outcome: "failed" });
    expect(result.code).toBe(1);
    expect(report.verification.at(-1)).toEqual({ command: "npm test", exitCode: 1 });
    expect(report.filesChanged).toEqual([{ path: "a.txt", added: 1, removed: 0 }]);
  });

  it("the task replaces the test runner in node_modules/.bin with `exit 0`: the forged pass is not completed", async () => {
    const cwd = gitProject({
      "package.json": JSON.stringify({ name: "p", scripts: { test: "checker" } }),
      ".gitignore": "node_modules/\n",
      "state.txt": "good\n",
    });
    mkdirSync(join(cwd, "node_modules", ".bin"), { recursive: true });
    writeFileSync(join(cwd, "node_modules", ".bin", "checker"), "#!/bin/sh\ngrep -q good state.txt\n", {
      mode: 0o755,
    });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "state.txt", content: "bad\n" } }] },
        {
          toolCalls: [
            {
              name: "run_command",
              input: { command: "printf '#!/bin/sh\\nexit 0\\n' > node_modules/.bin/checker" },
            },
          ],
        },
        ...giveUp,
      ],
    });
    const { result, report } = await runTask("change the state", cwd, fake.url);
    expect(report.outcome).toBe("paused");
    expect(result.code).toBe(3);
    expect(report.checksChanged).toEqual([
      { path: "node_modules/.bin/checker", change: "file the check runs modified" },
    ]);
  });
});
