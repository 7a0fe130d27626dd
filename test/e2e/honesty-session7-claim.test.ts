import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { providerEnv } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { latestTask, query } from "../helpers/ledger.js";
import { commandStarted, processesRunning, slowCommand, startCli, until } from "../helpers/processes.js";
import { startTask } from "../helpers/task-runs.js";

const server = useFakeServers();

describe("two 'continue's of one crashed task at once (built binary, loopback model)", {
  timeout: 300_000,
}, () => {
  it("exactly one process resumes it; the other is refused, naming the live owner", async () => {
    const cwd = gitProject({ "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) });
    const first = slowCommand(cwd);
    const fake = await server({
      replies: [{ toolCalls: [{ name: "run_command", input: { command: first.command } }] }],
    });
    const { home, run } = startTask("do the work", cwd, fake.url);
    await commandStarted(first, "the first run's command");
    run.child.kill("SIGKILL");
    await run.exited;
    for (const pid of processesRunning(first.marker)) process.kill(pid, "SIGKILL");
    const task = latestTask(home);
    expect(task.status).toBe("running");

    // The resumed run blocks in a command, so its process is alive while the other one decides.
    rmSync(first.started, { force: true });
    const second = slowCommand(cwd);
    fake.push(
      { toolCalls: [{ name: "run_command", input: { command: second.command } }] },
      ...Array.from({ length: 6 }, () => ({ text: "Done, all tests pass." })),
    );
    const args = ["run", "continue", "--session", task.session_id, "--json", "--yes"];
    const env = providerEnv(fake.url);
    const runs = [startCli(args, home, cwd, env), startCli(args, home, cwd, env)];
    try {
      const ended = await Promise.race(runs.map((live, index) => live.exited.then(() => index)));
      const loser = runs[ended];
      const winner = runs[1 - ended];
      if (!loser || !winner) throw new Error("two runs were started");
      await commandStarted(second, "the resumed run's command");
      // Resumed once; the process that ended never ran the task.
      expect(query(home, "SELECT status, resumes FROM tasks WHERE id = ?", task.id)).toEqual({
        status: "running",
        resumes: 1,
      });
      expect((await loser.exited).code).not.toBe(0);
      winner.child.kill("SIGINT");
      await winner.exited;
      expect(query(home, "SELECT status FROM tasks WHERE id = ?", task.id)).toEqual({ status: "cancelled" });
      await until(() => processesRunning(second.marker).length === 0, "the resumed command to be stopped");
    } finally {
      for (const live of runs) if (live.child.exitCode === null) live.child.kill("SIGKILL");
      for (const pid of processesRunning(second.marker)) process.kill(pid, "SIGKILL");
    }
  });
});
