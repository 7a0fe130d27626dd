import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { cliPath, fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";

const server = useFakeServers();

const failingSuite = { "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) };

/** Waits for a condition that an event outside this process makes true (a file, a request). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let round = 0; round < 6000; round++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Host pids of live processes whose command line holds `marker` (a sandboxed pid is not the host's). */
function processesRunning(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let commandLine = "";
    try {
      commandLine = readFileSync(`/proc/${entry}/cmdline`, "utf8");
    } catch {
      continue; // the process ended while we looked
    }
    if (commandLine.split("\0").includes(marker) && alive(Number(entry))) found.push(Number(entry));
  }
  return found;
}

function latestTask(home: string): { id: string; session_id: string; status: string } {
  const database = new Database(join(home, "mercury.db"), { readonly: true });
  try {
    return database.prepare("SELECT id, session_id, status FROM tasks ORDER BY rowid DESC LIMIT 1").get() as {
      id: string;
      session_id: string;
      status: string;
    };
  } finally {
    database.close();
  }
}

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
    const resumed = await runCli(["run", "continue", "--session", first.sessionId, "--json", "--yes"], {
      home,
      cwd,
      env: providerEnv(fake.url),
    });
    const report = JSON.parse(resumed.stdout);
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
    const markers = join(cwd, ".markers");
    mkdirSync(markers);
    writeFileSync(join(cwd, ".gitignore"), ".markers/\n");
    const started = join(markers, "started");
    const uniqueSeconds = String(900_000 + Math.floor(Math.random() * 99_999));
    writeFileSync(join(markers, "cmd.sh"), `touch .markers/started\nexec sleep ${uniqueSeconds}\n`);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "hello.txt", content: "hi\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "sh .markers/cmd.sh" } }] },
      ],
    });
    const { home } = makeHome(fastRetryConfig);
    const child = spawn(process.execPath, [cliPath, "run", "write hello.txt", "--json", "--yes"], {
      cwd,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        MERCURY_HOME: home,
        NO_COLOR: "1",
        ...providerEnv(fake.url),
      },
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    await until(
      () => existsSync(started) && processesRunning(uniqueSeconds).length > 0,
      "the command to start",
    );
    child.kill("SIGKILL");
    await exited;
    const task = latestTask(home);
    expect(task.status).toBe("running");

    fake.push(...giveUp);
    const resumed = await runCli(["run", "continue", "--session", task.session_id, "--json", "--yes"], {
      home,
      cwd,
      env: providerEnv(fake.url),
    });
    const report = JSON.parse(resumed.stdout);
    // Whether the sandbox's parent-death signal or the next start's cleanup ended it: none survives.
    await until(() => processesRunning(uniqueSeconds).length === 0, "the orphaned command to end");
    expect(report).toMatchObject({ taskId: task.id, outcome: "failed" });
    expect(report.filesChanged).toEqual([{ path: "hello.txt", added: 1, removed: 0 }]);
    // The dangling call got an honest result, so the provider accepted the history.
    const resumedRequest = JSON.stringify(fake.chatRequests()[2]?.body);
    expect(resumedRequest).toContain("interrupted: Mercury stopped");
  });
});
