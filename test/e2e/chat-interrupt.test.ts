import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { latestTask, query } from "../helpers/ledger.js";
import { fileExists, processesRunning, slowCommand, until } from "../helpers/processes.js";
import { type TmuxChat, useTmuxChats } from "../helpers/tmux.js";

const server = useFakeServers();
const openChat = useTmuxChats();

/** A suite that passes while state.txt says "good". */
const stateSuite = {
  "package.json": JSON.stringify({ name: "p", scripts: { test: "sh check.sh" } }),
  "check.sh": "grep -q good state.txt\n",
  "state.txt": "start\n",
};

interface ChatAt {
  chat: TmuxChat;
  home: string;
  cwd: string;
}

async function startChat(url: string, cwd: string): Promise<ChatAt> {
  const { home, userHome } = makeHome(fastRetryConfig);
  const chat = openChat({ home, userHome, cwd, env: providerEnv(url) });
  await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
  return { chat, home, cwd };
}

function send(chat: TmuxChat, text: string): void {
  chat.type(text);
  chat.enter();
}

/** The last non-empty line of the screen is the bare prompt: the chat takes a new message. */
const promptBack = (screen: string): boolean =>
  (screen.split("\n").filter(Boolean).at(-1) ?? "").trim() === "›";

const approvalAsked = (screen: string): boolean => screen.includes("approve? y/s/a/n ›");

function toolMessages(home: string, taskId: string): string {
  return (
    query<{ content: string | null }>(
      home,
      "SELECT group_concat(content, '\n') AS content FROM messages WHERE task_id = ? AND role = 'tool'",
      taskId,
    ).content ?? ""
  );
}

/** Starts the slow command through the approval prompt (chat asks before running a script). */
async function startSlowCommand(at: ChatAt, command: string, marker: string, started: string): Promise<void> {
  send(at.chat, "run the script");
  await at.chat.waitFor(approvalAsked, "the approval prompt for the script");
  send(at.chat, "y");
  await until(() => fileExists(started)() && processesRunning(marker).length > 0, `${command} to start`);
}

// No skip when tmux is missing: .ci/run installs it, and a skipped terminal test would hide a lie.
describe("mercury chat: Ctrl-C and Ctrl-D tell the truth (tmux, built binary)", {
  timeout: 300_000,
}, () => {
  it("Ctrl-C while the model streams: cancelled on screen and in the ledger, the prompt back, the next message answered", async () => {
    const fake = await server({
      replies: [{ hang: true, text: ["Working on ", "it"] }, { text: "Next one answered." }],
    });
    const at = await startChat(fake.url, gitProject(stateSuite));
    send(at.chat, "a long job");
    // Stopped mid-stream: the spinner says "writing" once deltas arrive (text is shown a block at a time).
    await at.chat.waitFor(
      (screen) => /writing \d+s/.test(screen) && fake.chatRequests().length === 1,
      "the spinner writing the streamed reply",
    );
    const task = latestTask(at.home);
    at.chat.key("C-c");
    await at.chat.waitFor((screen) => screen.includes("■ cancelled"), "the task cancelled");
    expect(query(at.home, "SELECT status, outcome FROM tasks WHERE id = ?", task.id)).toEqual({
      status: "cancelled",
      outcome: "cancelled",
    });
    await at.chat.waitFor(promptBack, "the prompt back");
    send(at.chat, "next");
    await at.chat.waitFor((screen) => screen.includes("Next one answered."), "the next answer");
    expect(at.chat.exitStatus()).toBeNull();
    // What the person read before Ctrl-C is in the transcript, marked cut, so the next turn's model knows it.
    const next = JSON.stringify(fake.chatRequests()[1]);
    expect(next).toContain("Working on it");
    expect(next).toContain("[interrupted here]");
  });

  it("Ctrl-C while a command runs: its process is gone, the call is recorded as interrupted, the task cancelled", async () => {
    const cwd = gitProject(stateSuite);
    const slow = slowCommand(cwd);
    const fake = await server({
      replies: [{ toolCalls: [{ name: "run_command", input: { command: slow.command } }] }],
    });
    const at = await startChat(fake.url, cwd);
    await startSlowCommand(at, slow.command, slow.marker, slow.started);
    const pids = processesRunning(slow.marker);
    const task = latestTask(at.home);
    at.chat.key("C-c");
    const screen = await at.chat.waitFor((text) => text.includes("■ cancelled"), "the task cancelled");
    expect(screen).not.toMatch(/✓ run_command/);
    await until(
      () => pids.every((pid) => !processesRunning(slow.marker).includes(pid)),
      "the command killed",
    );
    expect(processesRunning(slow.marker)).toEqual([]);
    expect(query(at.home, "SELECT status, outcome FROM tasks WHERE id = ?", task.id)).toEqual({
      status: "cancelled",
      outcome: "cancelled",
    });
    expect(query<{ n: number }>(at.home, "SELECT COUNT(*) AS n FROM task_processes").n).toBe(0);
    expect(toolMessages(at.home, task.id)).toMatch(/cancel|interrupt/i);
    await at.chat.waitFor(promptBack, "the prompt back");
  });

  it("Ctrl-C twice during a command: chat exits 0, the task is cancelled, and run --continue does not resume it", async () => {
    const cwd = gitProject(stateSuite);
    const slow = slowCommand(cwd);
    const fake = await server({
      replies: [{ toolCalls: [{ name: "run_command", input: { command: slow.command } }] }],
    });
    const at = await startChat(fake.url, cwd);
    await startSlowCommand(at, slow.command, slow.marker, slow.started);
    const task = latestTask(at.home);
    at.chat.key("C-c");
    at.chat.key("C-c");
    expect(await at.chat.waitForExit("the chat")).toBe(0);
    expect(processesRunning(slow.marker)).toEqual([]);
    expect(query(at.home, "SELECT status FROM tasks WHERE id = ?", task.id)).toEqual({
      status: "cancelled",
    });
    fake.push({ text: "Nothing to continue." });
    const after = await runCli(["run", "continue", "--continue", "--json"], {
      home: at.home,
      cwd,
      env: providerEnv(fake.url),
    });
    expect(JSON.parse(after.stdout).taskId).not.toBe(task.id);
  });

  it("Ctrl-D during a command: chat stops the task (cancelled, process gone) and exits 0", async () => {
    const cwd = gitProject(stateSuite);
    const slow = slowCommand(cwd);
    const fake = await server({
      replies: [{ toolCalls: [{ name: "run_command", input: { command: slow.command } }] }],
    });
    const at = await startChat(fake.url, cwd);
    await startSlowCommand(at, slow.command, slow.marker, slow.started);
    const task = latestTask(at.home);
    at.chat.key("C-d");
    expect(await at.chat.waitForExit("the chat")).toBe(0);
    expect(processesRunning(slow.marker)).toEqual([]);
    expect(query(at.home, "SELECT status FROM tasks WHERE id = ?", task.id)).toEqual({
      status: "cancelled",
    });
  });

  it("'continue' typed after a cancelled task that changed a file does not claim completion", async () => {
    const cwd = gitProject(stateSuite);
    const slow = slowCommand(cwd);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "state.txt", content: "good\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: slow.command } }] },
      ],
    });
    const at = await startChat(fake.url, cwd);
    send(at.chat, "make the state good");
    await at.chat.waitFor(approvalAsked, "the approval prompt for the write");
    send(at.chat, "y");
    await at.chat.waitFor(approvalAsked, "the approval prompt for the script");
    send(at.chat, "y");
    await until(() => processesRunning(slow.marker).length > 0, "the command to start");
    const task = latestTask(at.home);
    at.chat.key("C-c");
    await at.chat.waitFor((screen) => screen.includes("■ cancelled"), "the task cancelled");
    await at.chat.waitFor(promptBack, "the prompt back");
    fake.push(...Array.from({ length: 6 }, () => ({ text: "Done, all tests pass." })));
    send(at.chat, "continue");
    const screen = await at.chat.waitFor(
      (text) =>
        /[✓✗■⏸!] (completed|responded|paused|failed|cancelled)/.test(text.split("■ cancelled").at(-1) ?? ""),
      "the outcome of the continue",
    );
    expect(screen.split("■ cancelled").at(-1)).not.toContain("completed");
    const next = latestTask(at.home);
    expect(next.id).not.toBe(task.id);
    expect(
      query<{ outcome: string }>(at.home, "SELECT outcome FROM tasks WHERE id = ?", next.id).outcome,
    ).not.toBe("completed");
  });

  it("Ctrl-C at an approval prompt: the approval is recorded as denied, the task cancelled, the next line is a message", async () => {
    const cwd = gitProject(stateSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "run_command", input: { command: "touch approved.txt && echo x" } }] },
        { text: "Next one answered." },
      ],
    });
    const at = await startChat(fake.url, cwd);
    send(at.chat, "touch it");
    await at.chat.waitFor(approvalAsked, "the approval prompt");
    const task = latestTask(at.home);
    at.chat.key("C-c");
    await at.chat.waitFor((screen) => screen.includes("■ cancelled"), "the task cancelled");
    expect(query(at.home, "SELECT status, answered_by FROM approvals WHERE task_id = ?", task.id)).toEqual({
      status: "denied",
      answered_by: "owner",
    });
    expect(query(at.home, "SELECT status FROM tasks WHERE id = ?", task.id)).toEqual({
      status: "cancelled",
    });
    await at.chat.waitFor(promptBack, "the prompt back");
    // "y" now is a message to the model, not an answer to the dead approval.
    send(at.chat, "y");
    await at.chat.waitFor((screen) => screen.includes("Next one answered."), "the next answer");
    expect(fileExists(`${cwd}/approved.txt`)()).toBe(false);
  });
});
