import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";
import { runCli } from "../helpers/cli.js";
import { type DaemonHome, daemonHome, subscribe } from "./daemon-helpers.js";

let server: FakeOpenAIServer;
let current: DaemonHome | null = null;

beforeEach(async () => {
  server = await startFakeOpenAIServer({ replies: [] });
});

afterEach(async () => {
  await current?.cleanup();
  current = null;
  await server.close();
});

describe("mercury chat with a daemon running", () => {
  it("attaches over the socket: the daemon's agent answers and the ledger records the task as delivered", async () => {
    current = daemonHome(server.url);
    const started = await current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    server.push({ text: "Hello from the shared agent." });
    const chat = await runCli(["chat"], {
      home: current.home,
      userHome: current.userHome,
      env: current.env,
      input: "hi there\n",
      cwd: current.workspace,
    });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stderr).toContain("attached to the running Mercury daemon");
    expect(chat.stdout).toContain("Hello from the shared agent.");
    const tasks = current.query<{ id: string; channel: string; status: string; cwd: string }>(
      "SELECT * FROM tasks",
    );
    expect(tasks).toEqual([
      expect.objectContaining({ channel: "cli", status: "responded", cwd: current.workspace }),
    ]);
    expect(current.query("SELECT status FROM task_deliveries")).toEqual([{ status: "sent" }]);

    // Delivered once: a later terminal is not sent the same answer again.
    const client = await current.connect();
    const pushes = await subscribe(client);
    // Undelivered answers are written right after the subscribe reply; the reply to a later request
    // comes after them on the same socket, so once it is here every answer would have arrived.
    await client.request({ type: "status" });
    expect(pushes.filter((push) => push.type === "answer")).toEqual([]);
    client.close();
  });

  it("a bracketed multi-line paste reaches the daemon as one message", async () => {
    current = daemonHome(server.url);
    const started = await current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    server.push({ text: "One message received." });
    const chat = await runCli(["chat"], {
      home: current.home,
      userHome: current.userHome,
      env: current.env,
      input: "\x1b[200~first pasted\nsecond pasted\x1b[201~\n",
      cwd: current.workspace,
    });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toContain("One message received.");
    const users = server
      .chatRequests()
      .map((request) => JSON.stringify(request.body))
      .filter((body) => body.includes("pasted"));
    expect(users).toHaveLength(1);
    expect(users[0]).toContain("first pasted\\nsecond pasted");
  });

  it("runs standalone when no daemon is up", async () => {
    current = daemonHome(server.url);
    server.push({ text: "Standalone answer." });
    const chat = await runCli(["chat"], {
      home: current.home,
      userHome: current.userHome,
      env: current.env,
      input: "hi\n",
    });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stderr).not.toContain("attached to the running Mercury daemon");
    expect(chat.stdout).toContain("Standalone answer.");
  });
});
