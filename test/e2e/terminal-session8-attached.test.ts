import { afterEach, describe, expect, it } from "vitest";
import { type DaemonHome, daemonHome } from "../daemon/daemon-helpers.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { useTmuxChats } from "../helpers/tmux.js";

/**
 * Ctrl+C at an approval prompt of the chat attached to the daemon (tmux, built binary). It stopped
 * the task, but the prompt went on asking "approve? y/s/a/n", the next message was refused as "answer
 * y, s, a or n", and the daemon kept the approval pending for a task that no longer ran (`mercury
 * status`: approvals pending: 1; asked again after a restart).
 */
const server = useFakeServers();
const openChat = useTmuxChats();
const daemons: DaemonHome[] = [];
afterEach(async () => {
  for (const daemon of daemons.splice(0)) await daemon.cleanup();
});

describe("the attached chat's approval prompt and Ctrl+C (tmux, built binary)", { timeout: 300_000 }, () => {
  it("Ctrl+C at the prompt refuses the approval, stops the task, and the next line is a message again", async () => {
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "run_command", input: { command: "touch never.txt" } }] },
        // Whether the stopped task's next step asks the model before the stop lands or not, the
        // next message is answered with this.
        { text: "Back to talking." },
        { text: "Back to talking." },
      ],
    });
    const daemon = daemonHome(fake.url);
    daemons.push(daemon);
    const started = await daemon.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const chat = openChat({
      home: daemon.home,
      userHome: daemon.userHome,
      cwd: daemon.workspace,
      env: daemon.env,
    });
    await chat.waitFor((screen) => screen.includes("attached to the running Mercury daemon"), "the welcome");
    chat.type("make the file");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("approve? y/s/a/n ›"), "the approval prompt");

    chat.key("C-c");
    const stopped = await chat.waitFor((screen) => screen.includes("■ cancelled"), "the task cancelled");
    expect(stopped).toContain("approval denied: the task was stopped at the prompt");
    await chat.waitFor(
      (screen) => (screen.split("\n").filter(Boolean).at(-1) ?? "").trim() === "›",
      "the plain prompt back",
    );
    expect(daemon.query("SELECT status FROM approvals")).toEqual([{ status: "denied" }]);
    expect(daemon.query("SELECT status FROM tasks")).toEqual([{ status: "cancelled" }]);
    const status = await daemon.cli(["status", "--json"]);
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { pendingApprovals: unknown[] }).pendingApprovals).toEqual([]);

    chat.type("are you there");
    chat.enter();
    const answered = await chat.waitFor(
      (screen) => /› are you there\n(.*\n)*Back to talking\./.test(screen),
      "the next message answered",
    );
    expect(answered).not.toContain("answer y, s, a or n");
  });
});
