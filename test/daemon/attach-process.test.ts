import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";
import { daemonHome, subscribe } from "./daemon-helpers.js";

const fixture = useDaemonFixture();

describe("mercury chat with a daemon running", () => {
  it("attaches over the socket: the daemon's agent answers and the ledger records the task as delivered", async () => {
    fixture.current = daemonHome(fixture.server.url);
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    fixture.server.push({ text: "Hello from the shared agent." });
    const chat = await runCli(["chat"], {
      home: fixture.current.home,
      userHome: fixture.current.userHome,
      env: fixture.current.env,
      input: "hi there\n",
      cwd: fixture.current.workspace,
    });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stderr).toContain("attached to the running Mercury daemon");
    expect(chat.stdout).toContain("Hello from the shared agent.");
    const tasks = fixture.current.query<{ id: string; channel: string; status: string; cwd: string }>(
      "SELECT * FROM tasks",
    );
    expect(tasks).toEqual([
      expect.objectContaining({ channel: "cli", status: "responded", cwd: fixture.current.workspace }),
    ]);
    expect(fixture.current.query("SELECT status FROM task_deliveries")).toEqual([{ status: "sent" }]);

    // Delivered once: a later terminal is not sent the same answer again.
    const client = await fixture.current.connect();
    const pushes = await subscribe(client);
    // Undelivered answers are written right after the subscribe reply; the reply to a later request
    // comes after them on the same socket, so once it is here every answer would have arrived.
    await client.request({ type: "status" });
    expect(pushes.filter((push) => push.type === "answer")).toEqual([]);
    client.close();
  });

  it("a bracketed multi-line paste reaches the daemon as one message", async () => {
    fixture.current = daemonHome(fixture.server.url);
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    fixture.server.push({ text: "One message received." });
    const chat = await runCli(["chat"], {
      home: fixture.current.home,
      userHome: fixture.current.userHome,
      env: fixture.current.env,
      input: "\x1b[200~first pasted\nsecond pasted\x1b[201~\n",
      cwd: fixture.current.workspace,
    });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toContain("One message received.");
    const users = fixture.server
      .chatRequests()
      .map((request) => JSON.stringify(request.body))
      .filter((body) => body.includes("pasted"));
    expect(users).toHaveLength(1);
    expect(users[0]).toContain("first pasted\\nsecond pasted");
  });

  it("runs standalone when no daemon is up", async () => {
    fixture.current = daemonHome(fixture.server.url);
    fixture.server.push({ text: "Standalone answer." });
    const chat = await runCli(["chat"], {
      home: fixture.current.home,
      userHome: fixture.current.userHome,
      env: fixture.current.env,
      input: "hi\n",
    });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stderr).not.toContain("attached to the running Mercury daemon");
    expect(chat.stdout).toContain("Standalone answer.");
  });
});
