import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { latestTask } from "../helpers/ledger.js";
import { commandStarted, processesRunning, slowCommand, until } from "../helpers/processes.js";
import { continueTask, startTask, type TaskReport } from "../helpers/task-runs.js";

const server = useFakeServers();
const passingSuite = { "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 0" } }) };
/** A step budget of 2 with no progress pauses the task (steps-exhausted), which "continue" resumes. */
const twoSteps = `${fastRetryConfig}agent:\n  maxSteps: 2\n`;

async function firstRun(cwd: string, url: string): Promise<{ home: string; report: TaskReport }> {
  const { home } = makeHome(twoSteps);
  const result = await runCli(["run", "write the release notes", "--json", "--yes"], {
    home,
    cwd,
    env: providerEnv(url),
  });
  return { home, report: JSON.parse(result.stdout) };
}

describe("what a run could not do stays said after 'continue' (built binary, loopback model)", {
  timeout: 300_000,
}, () => {
  it("a write that failed, the task paused, then 'continue' and 'done, I wrote it': the failure stays beside the claim", async () => {
    const cwd = gitProject(passingSuite);
    const fake = await server({
      replies: [
        // Run 1: the write fails (outside the workspace), then the budget runs out without progress.
        {
          toolCalls: [{ name: "write_file", input: { path: "/etc/mercury-notes.txt", content: "notes\n" } }],
        },
        { toolCalls: [{ name: "list_dir", input: { path: "." } }] },
        // Run 2 ("continue"): the model only claims the write.
        { text: "Done, I wrote the release notes." },
      ],
    });
    const first = await firstRun(cwd, fake.url);
    expect(first.report).toMatchObject({ outcome: "paused", endCause: "steps-exhausted" });

    const { report } = await continueTask(first.home, cwd, first.report.sessionId, fake.url, ["--yes"]);
    expect(report.taskId).toBe(first.report.taskId);
    expect(report.outcome).toBe("responded");
    expect(report.filesChanged).toEqual([]);
    expect(report.reason).toMatch(
      /^nothing was changed; write_file failed \(.+\), so nothing the answer says about it is verified$/,
    );
  });

  it("a sub-agent that failed, the task paused, then 'continue' and 'the helper did it': the failure stays", async () => {
    const cwd = gitProject(passingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "delegate_task", input: { task: "write notes.txt" } }] },
        ...Array.from({ length: 3 }, () => ({ error: { status: 500, message: "child provider exploded" } })),
        { toolCalls: [{ name: "list_dir", input: { path: "." } }] },
        { text: "The helper wrote notes.txt." },
      ],
    });
    const first = await firstRun(cwd, fake.url);
    expect(first.report).toMatchObject({ outcome: "paused", endCause: "steps-exhausted" });

    const { report } = await continueTask(first.home, cwd, first.report.sessionId, fake.url, ["--yes"]);
    expect(report.taskId).toBe(first.report.taskId);
    expect(report.outcome).toBe("responded");
    expect(report.reason).toMatch(/^nothing was changed; a sub-agent did not finish its work \(failed: /);
  });

  it("kill -9 during a command that changes files, then 'continue' and 'done': the cut-off command is beside the claim", async () => {
    const cwd = gitProject(passingSuite);
    const slow = slowCommand(cwd);
    const fake = await server({
      replies: [{ toolCalls: [{ name: "run_command", input: { command: slow.command } }] }],
    });
    const { home, run } = startTask("generate the release notes", cwd, fake.url);
    await commandStarted(slow, "the command to start");
    run.child.kill("SIGKILL");
    await run.exited;
    const task = latestTask(home);
    expect(task.status).toBe("running");

    // The resumed run changes nothing and only claims the work the cut-off command was doing.
    fake.push({ text: "Done: the release notes are generated." });
    const { report } = await continueTask(home, cwd, task.session_id, fake.url, ["--yes"]);
    await until(() => processesRunning(slow.marker).length === 0, "the orphaned command to end");
    expect(report).toMatchObject({ taskId: task.id, outcome: "responded", filesChanged: [] });
    expect(report.reason).toBe(
      "nothing was changed; run_command was cut off by a crash before it finished (its effect is unknown), so nothing the answer says about it is verified",
    );
  });
});
