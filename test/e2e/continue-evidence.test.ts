import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { latestTask } from "../helpers/ledger.js";
import { commandStarted, processesRunning, slowCommand, until } from "../helpers/processes.js";
import { continueTask, startTask } from "../helpers/task-runs.js";

const server = useFakeServers();

const failingSuite = { "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) };

const giveUp = [{ text: "Done." }, { text: "Done." }, { text: "Done." }];

describe("continue keeps the task's evidence (built binary, loopback model)", { timeout: 120_000 }, () => {
  it("a stalled task resumed with 'continue' is judged on its earlier change: failed, file listed", async () => {
    const cwd = gitProject(failingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "hello.txt", content: "hi\n" } }] },
        { hang: true },
      ],
    });
    const { home } = makeHome(fastRetryConfig);
    const env = providerEnv(fake.url, { MERCURY_STALL_SOFT_MS: "200", MERCURY_STALL_HARD_MS: "600" });
    const first = JSON.parse(
      (await runCli(["run", "write hello.txt", "--json", "--yes"], { home, cwd, env })).stdout,
    );
    expect(first.outcome).toBe("paused");
    expect(first.reason).toMatch(/^stalled/);
    fake.push(...giveUp);
    const { result: resumed, report } = await continueTask(home, cwd, first.sessionId, fake.url, ["--yes"]);
    expect(report).toMatchObject({ taskId: first.taskId, outcome: "failed" });
    expect(resumed.code).toBe(1);
    expect(report.filesChanged).toEqual([{ path: "hello.txt", added: 1, removed: 0 }]);
    expect(report.reason).toContain("verification failed: `npm test` exited 1");
    expect(latestTask(home)).toMatchObject({ id: first.taskId, status: "failed" });
  });

  it("kill -9 during a command: 'continue' repairs the session, no child survives, and the gate sees the change", async () => {
    const cwd = gitProject(failingSuite);
    // The command runs in the OS sandbox (private /tmp, own pid namespace): its script and marker live
    // in an ignored folder of the workspace, and the host finds it by a unique argument in /proc.
    const slow = slowCommand(cwd);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "hello.txt", content: "hi\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: slow.command } }] },
      ],
    });
    const { home, run } = startTask("write hello.txt", cwd, fake.url);
    await commandStarted(slow, "the command to start");
    run.child.kill("SIGKILL");
    await run.exited;
    const task = latestTask(home);
    expect(task.status).toBe("running");

    fake.push(...giveUp);
    const { report } = await continueTask(home, cwd, task.session_id, fake.url, ["--yes"]);
    // Whether the sandbox's parent-death signal or the next start's cleanup ended it: none survives.
    await until(() => processesRunning(slow.marker).length === 0, "the orphaned command to end");
    expect(report).toMatchObject({ taskId: task.id, outcome: "failed" });
    expect(report.filesChanged).toEqual([{ path: "hello.txt", added: 1, removed: 0 }]);
    // The dangling call got an honest result, so the provider accepted the history.
    const resumedRequest = JSON.stringify(fake.chatRequests()[2]?.body);
    expect(resumedRequest).toContain("interrupted: Mercury stopped");
  });
});
