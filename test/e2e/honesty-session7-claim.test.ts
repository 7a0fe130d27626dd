import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { providerEnv } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { latestTask, query } from "../helpers/ledger.js";
import { type LiveRun, startCli, until } from "../helpers/processes.js";
import { startTask } from "../helpers/task-runs.js";

const server = useFakeServers();

/**
 * Whether the process's main thread sleeps in nanosleep (x86_64 35, clock_nanosleep 230): SQLite's
 * busy handler waiting for the write lock. Node's idle loop waits in epoll, never there.
 */
function waitingForTheLock(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    const call = readFileSync(`/proc/${pid}/syscall`, "utf8").split(" ")[0];
    return call === "35" || call === "230";
  } catch {
    return false;
  }
}

describe("two 'continue's of one crashed task at once (built binary, loopback model)", {
  timeout: 300_000,
}, () => {
  it("exactly one process resumes it; the other is refused", async () => {
    const cwd = gitProject({ "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) });
    const fake = await server({ replies: [{ hang: true }] });
    const { home, run } = startTask("do the work", cwd, fake.url);
    await until(() => fake.chatRequests().length >= 1, "the first run's model request");
    run.child.kill("SIGKILL");
    await run.exited;
    const task = latestTask(home);
    expect(task.status).toBe("running");

    // The winner waits on the model, so its process is alive while the other one decides.
    fake.push({ hang: true }, ...Array.from({ length: 6 }, () => ({ text: "Done, all tests pass." })));
    const args = ["run", "continue", "--session", task.session_id, "--json", "--yes"];
    const env = providerEnv(fake.url);
    // Both start while the ledger's write lock is held here, so both reach the claim before either
    // has written: the widest form of the gap between marking the task running and owning it.
    const lock = new Database(join(home, "mercury.db"));
    lock.pragma("busy_timeout = 5000");
    lock.exec("BEGIN IMMEDIATE");
    let runs: LiveRun[] = [];
    try {
      runs = [startCli(args, home, cwd, env), startCli(args, home, cwd, env)];
      await until(
        () => runs.every((live) => waitingForTheLock(live.child.pid)),
        "both processes to wait for the ledger's write lock",
      );
      lock.exec("ROLLBACK");
      lock.close();
      const ended = await Promise.race(runs.map((live, index) => live.exited.then(() => index)));
      const loser = runs[ended];
      const winner = runs[1 - ended];
      if (!loser || !winner) throw new Error("two runs were started");
      const loserEnd = await loser.exited;
      expect(loserEnd.code).not.toBe(0);
      await until(() => fake.chatRequests().length >= 2, "the resumed run's model request");
      // Resumed once; the process that ended never ran the task.
      expect(query(home, "SELECT status, resumes FROM tasks WHERE id = ?", task.id)).toEqual({
        status: "running",
        resumes: 1,
      });
      expect(fake.chatRequests().length).toBe(2);
      winner.child.kill("SIGINT");
      await winner.exited;
      expect(query(home, "SELECT status FROM tasks WHERE id = ?", task.id)).toEqual({ status: "cancelled" });
    } finally {
      if (lock.open) {
        if (lock.inTransaction) lock.exec("ROLLBACK");
        lock.close();
      }
      for (const live of runs) if (live.child.exitCode === null) live.child.kill("SIGKILL");
    }
  });
});
