import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { latestTask, query } from "../helpers/ledger.js";
import { commandStarted, processesRunning, slowCommand, until } from "../helpers/processes.js";
import { continueTask, startTask } from "../helpers/task-runs.js";

const server = useFakeServers();

/** A suite that passes while state.txt says "good". */
const stateSuite = {
  "package.json": JSON.stringify({ name: "p", scripts: { test: "sh check.sh" } }),
  "check.sh": "grep -q good state.txt\n",
  "state.txt": "start\n",
};

const giveUp = Array.from({ length: 6 }, () => ({ text: "Done, all tests pass." }));

describe("honesty across interruptions (built binary, loopback model, real signals)", {
  timeout: 300_000,
}, () => {
  it("kill -9 in a command that broke the code after a passing run: the resumed task reruns the check and is not completed", async () => {
    const cwd = gitProject(stateSuite);
    const slow = slowCommand(cwd, "echo bad > state.txt");
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "state.txt", content: "good\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { toolCalls: [{ name: "run_command", input: { command: slow.command } }] },
      ],
    });
    const { home, run } = startTask("make the state good", cwd, fake.url);
    await commandStarted(slow, "the command to start");
    run.child.kill("SIGKILL");
    await run.exited;
    const task = latestTask(home);
    expect(task.status).toBe("running");

    fake.push(...giveUp);
    const { result: resumed, report } = await continueTask(home, cwd, task.session_id, fake.url, ["--yes"]);
    expect(report.taskId).toBe(task.id);
    expect(report.outcome).not.toBe("completed");
    expect(report.outcome).toBe("failed");
    expect(resumed.code).toBe(1);
    // The change made before the crash is shown, and the evidence is a fresh, failing run.
    expect(report.filesChanged).toEqual([{ path: "state.txt", added: 1, removed: 1 }]);
    expect(report.verification.at(-1)).toEqual({ command: "npm test", exitCode: 1 });
    // The interrupted call is reported as interrupted, never as a success.
    expect(report.toolErrors).toContainEqual(
      expect.objectContaining({ tool: "run_command", error: expect.stringMatching(/^interrupted/) }),
    );
    await until(() => processesRunning(slow.marker).length === 0, "the orphaned command to end");
  });

  it("kill -9 during the gate's own verification run: the resumed task runs it again and reports that result", async () => {
    const cwd = gitProject({
      "package.json": JSON.stringify({ name: "p", scripts: { test: "sh check.sh" } }),
      // Slow the first time (the test kills Mercury then), failing fast once .markers/fast exists.
      "check.sh": "if [ -f .markers/fast ]; then exit 1; fi\nsh .markers/cmd.sh\n",
    });
    const slow = slowCommand(cwd);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
        { text: "Done, all tests pass." },
      ],
    });
    const { home, run } = startTask("write a.txt", cwd, fake.url);
    await commandStarted(slow, "the verification to start");
    run.child.kill("SIGKILL");
    await run.exited;
    writeFileSync(join(cwd, ".markers", "fast"), "");
    const task = latestTask(home);
    expect(task.status).toBe("running");
    fake.push(...giveUp);
    const { report } = await continueTask(home, cwd, task.session_id, fake.url, ["--yes"]);
    expect(report).toMatchObject({ taskId: task.id, outcome: "failed" });
    expect(report.filesChanged).toEqual([{ path: "a.txt", added: 1, removed: 0 }]);
    expect(report.verification.every((entry: { exitCode: number | null }) => entry.exitCode === 1)).toBe(
      true,
    );
    await until(() => processesRunning(slow.marker).length === 0, "the orphaned verification to end");
  });

  it("SIGINT during a command: cancelled, exit 1, the ledger closed and no process left or recorded", async () => {
    const cwd = gitProject(stateSuite);
    const slow = slowCommand(cwd);
    const fake = await server({
      replies: [{ toolCalls: [{ name: "run_command", input: { command: slow.command } }] }],
    });
    const { home, run } = startTask("run the script", cwd, fake.url);
    await commandStarted(slow, "the command to start");
    run.child.kill("SIGINT");
    const exit = await run.exited;
    const report = JSON.parse(run.stdout());
    expect(report).toMatchObject({ outcome: "cancelled", endCause: "aborted" });
    expect(exit.code).toBe(1);
    expect(query(home, "SELECT status, outcome FROM tasks WHERE id = ?", report.taskId)).toEqual({
      status: "cancelled",
      outcome: "cancelled",
    });
    expect(query<{ n: number }>(home, "SELECT COUNT(*) AS n FROM task_processes").n).toBe(0);
    expect(processesRunning(slow.marker)).toEqual([]);
    // The stopped command is an error of this run, not a success.
    expect(report.toolErrors).toContainEqual(
      expect.objectContaining({ tool: "run_command", error: expect.stringMatching(/^Cancelled/) }),
    );
    // A "continue" after a deliberate stop does not resume the cancelled task.
    fake.push({ text: "Nothing to continue." });
    const { report: after } = await continueTask(home, cwd, report.sessionId, fake.url);
    expect(after.taskId).not.toBe(report.taskId);
  });

  it("Ctrl-C, then the process dies while winding down (a second Ctrl-C, a kill): the task stays cancelled, never resumed", async () => {
    const cwd = gitProject(stateSuite);
    const slow = slowCommand(cwd);
    const fake = await server({
      replies: [{ toolCalls: [{ name: "run_command", input: { command: slow.command } }] }],
    });
    const { home, run } = startTask("run the script", cwd, fake.url);
    await commandStarted(slow, "the command to start");
    const task = latestTask(home);
    run.child.kill("SIGINT");
    // The stop reached the command; the run is winding down (or just finished) when the process dies.
    await until(() => processesRunning(slow.marker).length === 0, "the command to be stopped");
    run.child.kill("SIGKILL");
    await run.exited;
    expect(query(home, "SELECT status FROM tasks WHERE id = ?", task.id)).toEqual({ status: "cancelled" });
    fake.push({ text: "Nothing to continue." });
    const { report: after } = await continueTask(home, cwd, task.session_id, fake.url);
    expect(after.taskId).not.toBe(task.id);
  });

  it("SIGTERM during a model stream after a change: cancelled, exit 1, the change still reported", async () => {
    const cwd = gitProject(stateSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "state.txt", content: "good\n" } }] },
        { hang: true, text: ["All tests ", "pass"] },
      ],
    });
    const { home, run } = startTask("make the state good", cwd, fake.url);
    await until(() => fake.chatRequests().length >= 2, "the second model request");
    run.child.kill("SIGTERM");
    const exit = await run.exited;
    const report = JSON.parse(run.stdout());
    expect(report).toMatchObject({ outcome: "cancelled", endCause: "aborted" });
    expect(exit.code).toBe(1);
    expect(report.filesChanged).toEqual([{ path: "state.txt", added: 1, removed: 1 }]);
    expect(query(home, "SELECT status FROM tasks WHERE id = ?", report.taskId)).toEqual({
      status: "cancelled",
    });
  });

  it("kill -9 during a model stream after a passing run, then a change by hand: 'continue' reruns the check", async () => {
    const cwd = gitProject(stateSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "state.txt", content: "good\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { hang: true, text: ["All tests ", "pass"] },
      ],
    });
    const { home, run } = startTask("make the state good", cwd, fake.url);
    await until(() => fake.chatRequests().length >= 3, "the third model request");
    run.child.kill("SIGKILL");
    await run.exited;
    const task = latestTask(home);
    // Someone (the user, another tool) changes the code after the passing run.
    writeFileSync(join(cwd, "state.txt"), "bad again\n");
    fake.push(...giveUp);
    const { result: resumed, report } = await continueTask(home, cwd, task.session_id, fake.url, ["--yes"]);
    expect(report).toMatchObject({ taskId: task.id, outcome: "failed" });
    expect(resumed.code).toBe(1);
    expect(report.verification.at(-1)).toEqual({ command: "npm test", exitCode: 1 });
  });
});
