import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { latestTask, query } from "../helpers/ledger.js";
import { commandStarted, processesRunning, slowCommand, until } from "../helpers/processes.js";
import { startTask } from "../helpers/task-runs.js";

const server = useFakeServers();

describe("one task, two processes (built binary, loopback model)", { timeout: 300_000 }, () => {
  it("'continue' from another terminal while the task still runs: refused, the running task untouched", async () => {
    const cwd = gitProject({ "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) });
    const slow = slowCommand(cwd, "echo work > work.txt");
    const fake = await server({
      replies: [{ toolCalls: [{ name: "run_command", input: { command: slow.command } }] }],
    });
    const { home, run } = startTask("do the work", cwd, fake.url);
    await commandStarted(slow, "the first run's command");
    const task = latestTask(home);
    const requestsBefore = fake.chatRequests().length;
    fake.push(...Array.from({ length: 4 }, () => ({ text: "Done, all tests pass." })));
    const second = await runCli(["run", "--continue", "continue", "--json", "--yes"], {
      home,
      cwd,
      env: providerEnv(fake.url),
    });
    expect(second.code).not.toBe(0);
    expect(second.stdout + second.stderr).toContain(
      `task ${task.id} is still running in another Mercury process`,
    );
    // Nothing ran the task a second time: no model request, no resume counted, still running.
    expect(fake.chatRequests().length).toBe(requestsBefore);
    expect(query(home, "SELECT status, resumes, continuations FROM tasks WHERE id = ?", task.id)).toEqual({
      status: "running",
      resumes: 0,
      continuations: 0,
    });
    run.child.kill("SIGINT");
    await run.exited;
    expect(query(home, "SELECT status FROM tasks WHERE id = ?", task.id)).toEqual({ status: "cancelled" });
    await until(() => processesRunning(slow.marker).length === 0, "the command to be stopped");
  });

  it("a daemon started and stopped while a `mercury run` task still runs neither resumes nor cancels that task", async () => {
    const cwd = gitProject({ "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) });
    const slow = slowCommand(cwd);
    const fake = await server({
      replies: [{ toolCalls: [{ name: "run_command", input: { command: slow.command } }] }],
    });
    const { home, run } = startTask("do the work", cwd, fake.url);
    await commandStarted(slow, "the run's command");
    const task = latestTask(home);
    const env = providerEnv(fake.url);
    const started = await runCli(["start"], { home, env });
    expect(started.code, started.stderr).toBe(0);
    try {
      const log = join(home, "logs", "daemon.log");
      await until(
        () => existsSync(log) && readFileSync(log, "utf8").includes("daemon ready"),
        "the daemon ready",
      );
      const ready = readFileSync(log, "utf8")
        .split("\n")
        .find((line) => line.includes("daemon ready"));
      expect(JSON.parse(ready ?? "{}").resumed).toEqual([]);
      expect(query(home, "SELECT status, resumes FROM tasks WHERE id = ?", task.id)).toEqual({
        status: "running",
        resumes: 0,
      });
    } finally {
      const stopped = await runCli(["stop"], { home, env });
      expect(stopped.code, stopped.stderr).toBe(0);
    }
    // Stopping the daemon does not touch the run's task: it still runs, and says so.
    expect(query(home, "SELECT status FROM tasks WHERE id = ?", task.id)).toEqual({ status: "running" });
    expect(processesRunning(slow.marker).length).toBeGreaterThan(0);
    run.child.kill("SIGINT");
    await run.exited;
    expect(query(home, "SELECT status FROM tasks WHERE id = ?", task.id)).toEqual({ status: "cancelled" });
  });
});
