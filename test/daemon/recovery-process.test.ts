import { describe, expect, it } from "vitest";
import { isAlive } from "../../src/daemon/lock.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";
import { type DaemonHome, daemonHome, killHard, pidFromStart, subscribe, waitFor } from "./daemon-helpers.js";

const fixture = useDaemonFixture();

interface TaskRow {
  id: string;
  status: string;
  resumes: number;
  reason: string | null;
  final_answer: string | null;
}

function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const users = messages.filter((message) => message.role === "user");
  const last = users[users.length - 1]?.content;
  return typeof last === "string" ? last : JSON.stringify(last);
}

async function submitAndWaitForRequest(daemon: DaemonHome, text: string): Promise<string> {
  const client = await daemon.connect();
  const reply = (await client.request({ type: "submit", text })) as { taskId: string };
  await waitFor(() => fixture.server.chatRequests().length >= 1, 15_000, "the task's first model request");
  client.close();
  return reply.taskId;
}

describe("crash recovery and graceful stop (real processes, real database)", () => {
  it("kill -9 mid-task: the next start resumes the task from the ledger and its answer is delivered once", async () => {
    fixture.current = daemonHome(fixture.server.url);
    fixture.server.push({ hang: true, text: ["Starting the report"] });
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const pid = pidFromStart(started.stdout);

    const taskId = await submitAndWaitForRequest(fixture.current, "write the quarterly report");
    expect(fixture.current.query<TaskRow>("SELECT * FROM tasks")).toEqual([
      expect.objectContaining({ id: taskId, status: "running", resumes: 0 }),
    ]);
    await killHard(pid);

    // Nobody is attached when the resumed task ends: the answer waits in the ledger.
    fixture.server.push({ text: "The quarterly report is written." });
    const restarted = await fixture.current.cli(["start"]);
    expect(restarted.code, restarted.stderr).toBe(0);
    await waitFor(
      () =>
        fixture.current?.query<TaskRow>("SELECT * FROM tasks WHERE id = ?", taskId)[0]?.status ===
        "responded",
      15_000,
      "the resumed task to end",
    );
    const [row] = fixture.current.query<TaskRow>("SELECT * FROM tasks WHERE id = ?", taskId);
    // A plain answer is "responded" in the ledger and in what is delivered, never "completed" (issue 10).
    expect(row).toMatchObject({
      status: "responded",
      resumes: 1,
      final_answer: "The quarterly report is written.",
    });
    expect(fixture.server.chatRequests()).toHaveLength(2);
    expect(lastUserText(fixture.server.chatRequests()[1]?.body)).toContain("[resume after restart]");
    expect(lastUserText(fixture.server.chatRequests()[1]?.body)).toContain("write the quarterly report");
    // The transcript of the interrupted run is part of the resumed run's context.
    expect(JSON.stringify(fixture.server.chatRequests()[1]?.body)).toContain("write the quarterly report");

    // Restart once more: the undelivered answer survives it, and goes to the first terminal that attaches.
    const stop = await fixture.current.cli(["stop"]);
    expect(stop.code, stop.stderr).toBe(0);
    const third = await fixture.current.cli(["start"]);
    expect(third.code, third.stderr).toBe(0);
    expect(fixture.current.query<TaskRow>("SELECT * FROM tasks WHERE id = ?", taskId)[0]?.status).toBe(
      "responded",
    );

    const first = await fixture.current.connect();
    const firstPushes = await subscribe(first);
    await waitFor(() => firstPushes.some((push) => push.type === "answer"), 5000, "the pending answer");
    const answers = firstPushes.filter((push) => push.type === "answer");
    expect(answers).toEqual([
      expect.objectContaining({ taskId, status: "responded", text: "The quarterly report is written." }),
    ]);
    first.close();

    const second = await fixture.current.connect();
    const secondPushes = await subscribe(second);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(secondPushes.filter((push) => push.type === "answer")).toEqual([]);
    second.close();

    expect(
      fixture.current.query("SELECT status, attempts FROM task_deliveries WHERE task_id = ?", taskId),
    ).toEqual([{ status: "sent", attempts: 1 }]);
    // Resumed once, never re-run: two model requests in all.
    expect(fixture.server.chatRequests()).toHaveLength(2);
  });

  it("mercury stop cancels the running task in the ledger and the next start does not resume it", async () => {
    fixture.current = daemonHome(fixture.server.url);
    fixture.server.push({ hang: true, text: ["Thinking"] });
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const pid = pidFromStart(started.stdout);
    const taskId = await submitAndWaitForRequest(fixture.current, "a long job");

    const stop = await fixture.current.cli(["stop"]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`mercury stopped (pid ${pid})`);
    expect(isAlive(pid)).toBe(false);
    const [row] = fixture.current.query<TaskRow>("SELECT * FROM tasks WHERE id = ?", taskId);
    expect(row?.status).toBe("cancelled");
    expect(row?.reason).toContain("SIGTERM");

    const again = await fixture.current.cli(["start"]);
    expect(again.code, again.stderr).toBe(0);
    const status = await fixture.current.cli(["status", "--json"]);
    expect(status.code, status.stderr).toBe(0);
    const parsed = JSON.parse(status.stdout) as {
      tasks: { active: unknown[]; counts: Record<string, number> };
    };
    expect(parsed.tasks.active).toEqual([]);
    expect(parsed.tasks.counts.cancelled).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fixture.server.chatRequests()).toHaveLength(1);
    expect(fixture.current.query<TaskRow>("SELECT * FROM tasks WHERE id = ?", taskId)[0]?.status).toBe(
      "cancelled",
    );
  });

  it("read_file on a 600 MB one-line file: the task ends, the daemon keeps running", async () => {
    fixture.current = daemonHome(fixture.server.url);
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const pid = pidFromStart(started.stdout);
    const { open } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const path = join(fixture.current.home, "workspace", "one-line.txt");
    const handle = await open(path, "w");
    await handle.write(Buffer.alloc(8192, "a"));
    await handle.truncate(600 * 1024 * 1024);
    await handle.close();
    fixture.server.push(
      { toolCalls: [{ name: "read_file", input: { path: "one-line.txt" } }] },
      { text: "It is one very long line." },
    );
    const client = await fixture.current.connect();
    const reply = (await client.request({ type: "submit", text: "read one-line.txt" })) as { taskId: string };
    client.close();
    const ended = () =>
      fixture.current?.query<TaskRow>("SELECT * FROM tasks WHERE id = ?", reply.taskId)[0]?.status;
    await waitFor(() => ended() === "responded", 60_000, "the task to end");
    expect(isAlive(pid)).toBe(true);
    const toolResult = JSON.stringify(fixture.server.chatRequests()[1]?.body);
    expect(toolResult).toContain("[line cut]");
  });
});
