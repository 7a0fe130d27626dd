import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type DaemonHome, daemonHome, subscribe, waitFor } from "../daemon/daemon-helpers.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { commandStarted, processesRunning, slowCommand, until } from "../helpers/processes.js";
import { type TmuxChat, useTmuxChats } from "../helpers/tmux.js";

/**
 * `mercury chat` attached to the running daemon, stopped in the ways people stop it: Ctrl-C, the
 * client killed, the daemon killed and started again. The ledger must say what really happened.
 */
const server = useFakeServers();
const openChat = useTmuxChats();
const daemons: DaemonHome[] = [];
afterEach(async () => {
  for (const daemon of daemons.splice(0)) await daemon.cleanup();
});

/** A daemon whose workspace is a committed project (suite `exit <code>`) with a slow command ready. */
async function daemonWithProject(url: string, code: number) {
  const daemon = daemonHome(url);
  daemons.push(daemon);
  writeFileSync(
    join(daemon.workspace, "package.json"),
    JSON.stringify({ name: "p", scripts: { test: `exit ${code}` } }),
  );
  const slow = slowCommand(daemon.workspace);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
      cwd: daemon.workspace,
      stdio: "pipe",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  const started = await daemon.cli(["start"]);
  expect(started.code, started.stderr).toBe(0);
  return { daemon, slow };
}

async function attach(daemon: DaemonHome): Promise<TmuxChat> {
  const chat = openChat({
    home: daemon.home,
    userHome: daemon.userHome,
    cwd: daemon.workspace,
    env: daemon.env,
  });
  await chat.waitFor(
    (screen) => screen.includes("attached to the running Mercury daemon") && screen.includes("›"),
    "the attached welcome line and prompt",
  );
  return chat;
}

/** Whether a pid is a live process (a zombie is not: it was killed and waits to be reaped). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

function send(chat: TmuxChat, text: string): void {
  chat.type(text);
  chat.enter();
}

function taskRow(daemon: DaemonHome): { id: string; status: string; reason: string | null } {
  const [row] = daemon.query<{ id: string; status: string; reason: string | null }>(
    "SELECT id, status, reason FROM tasks ORDER BY rowid DESC LIMIT 1",
  );
  if (!row) throw new Error("no task in the ledger");
  return row;
}

/** The task writes a file (the workspace is writable), then runs the slow command (approved in the chat). */
async function startWork(chat: TmuxChat, slow: { marker: string; started: string }) {
  send(chat, "write a.txt, then run the script");
  await chat.waitFor(
    (screen) => screen.includes("approval needed: run: sh .markers/cmd.sh"),
    "the script's approval",
  );
  send(chat, "y");
  await commandStarted(slow, "the slow command to start");
}

describe("the attached chat stopped mid-task (tmux, real daemon, built binary)", { timeout: 300_000 }, () => {
  it("Ctrl-C during a command: cancelled in the ledger and on screen, the command's process gone", async () => {
    const fake = await server({ replies: [] });
    const { daemon, slow } = await daemonWithProject(fake.url, 1);
    fake.push(
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
      { toolCalls: [{ name: "run_command", input: { command: slow.command } }] },
    );
    const chat = await attach(daemon);
    await startWork(chat, slow);
    chat.key("C-c");
    await chat.waitFor((screen) => screen.includes("■ cancelled"), "the task cancelled");
    expect(taskRow(daemon).status).toBe("cancelled");
    await until(() => processesRunning(slow.marker).length === 0, "the command to be killed");
  });

  it("the chat client killed (kill -9) mid-command: the daemon's task is still running, not cancelled or done; /stop from a new chat cancels it", async () => {
    const fake = await server({ replies: [] });
    const { daemon, slow } = await daemonWithProject(fake.url, 1);
    fake.push(
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
      { toolCalls: [{ name: "run_command", input: { command: slow.command } }] },
    );
    const first = await attach(daemon);
    await startWork(first, slow);
    const client = first.panePid();
    process.kill(client, "SIGKILL");
    await until(() => !running(client), "the killed chat to be gone");
    // The work goes on in the daemon: the ledger says running, and the command still runs.
    expect(taskRow(daemon).status).toBe("running");
    expect(processesRunning(slow.marker).length).toBeGreaterThan(0);
    const second = await attach(daemon);
    send(second, "/stop");
    await second.waitFor((screen) => screen.includes("stopped"), "the stop confirmed");
    expect(taskRow(daemon).status).toBe("cancelled");
    await until(() => processesRunning(slow.marker).length === 0, "the command to be killed");
  });

  it("the daemon killed (kill -9) mid-command: the chat says the connection ended; restarted, the task resumes and its failing check makes it failed", async () => {
    const fake = await server({ replies: [] });
    const { daemon, slow } = await daemonWithProject(fake.url, 1);
    fake.push(
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
      { toolCalls: [{ name: "run_command", input: { command: slow.command } }] },
    );
    const chat = await attach(daemon);
    await startWork(chat, slow);
    const task = taskRow(daemon);
    const pid = daemon.lockPid();
    if (pid === null) throw new Error("no daemon pid");
    process.kill(pid, "SIGKILL");
    await chat.waitFor(
      (screen) => screen.includes("the daemon connection ended"),
      "the connection loss shown",
    );
    await chat.waitForExit("the chat");
    expect(taskRow(daemon)).toMatchObject({ id: task.id, status: "running" });

    fake.push(...Array.from({ length: 6 }, () => ({ text: "Done, all tests pass." })));
    const restarted = await daemon.cli(["start"]);
    expect(restarted.code, restarted.stderr).toBe(0);
    const client = await daemon.connect();
    await subscribe(client);
    const approved = new Set<string>();
    // Approve every command the resumed task asks to run (its check included) until it ends. Read from
    // the ledger, not the pushes: the resumed task may ask before this client has subscribed.
    await waitFor(
      async () => {
        const pending = daemon.query<{ id: string }>("SELECT id FROM approvals WHERE status = 'pending'");
        for (const { id } of pending) {
          if (approved.has(id)) continue;
          approved.add(id);
          await client.request({ type: "approve", approvalId: id, decision: "once" });
        }
        return !["running", "queued"].includes(taskRow(daemon).status);
      },
      60_000,
      "the resumed task to end",
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}\n${JSON.stringify(daemon.query("SELECT status, summary FROM approvals"))}`,
      );
    });
    const ended = taskRow(daemon);
    expect(ended).toMatchObject({ id: task.id, status: "failed" });
    expect(ended.reason).toContain("verification failed: `npm test` exited 1");
    client.close();
    await until(() => processesRunning(slow.marker).length === 0, "the orphaned command to be reaped");
  });
});
