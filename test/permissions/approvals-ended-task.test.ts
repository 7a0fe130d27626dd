import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { ApprovalBroker } from "../../src/permissions/approvals.js";
import { openMemoryDatabase, type SqliteDatabase } from "../../src/storage/database.js";

/**
 * A question whose task was stopped from elsewhere (Telegram, the dashboard, another terminal) or
 * ended stayed pending: `mercury status` counted it and a restarted daemon asked it again, for a
 * task nobody would resume (session 8, found driving the attached chat in tmux).
 */
function addTask(database: SqliteDatabase, id: string, status: string): void {
  const at = new Date("2026-12-01T10:00:00Z").toISOString();
  database
    .prepare(
      "INSERT INTO tasks (id, session_id, user_key, channel, input, cwd, status, created_at, updated_at) VALUES (?, 's', 'owner', 'cli', 'x', '/tmp', ?, ?, ?)",
    )
    .run(id, status, at, at);
}

function setTaskStatus(database: SqliteDatabase, id: string, status: string): void {
  database.prepare("UPDATE tasks SET status = ? WHERE id = ?").run(status, id);
}

const question = (taskId: string) => ({
  taskId,
  sessionId: "s",
  userKey: "owner",
  kind: "command" as const,
  summary: `run: npm install (${taskId})`,
  subject: "npm install",
  rule: "command.not-readonly",
  reason: "npm is not on the read-only allowlist",
});

describe("approvals of ended tasks", () => {
  it("are withdrawn, not shown as pending nor asked again after a restart; running and paused tasks keep theirs", async () => {
    const database = openMemoryDatabase();
    for (const [id, status] of [
      ["task-stopped", "running"],
      ["task-done", "running"],
      ["task-live", "running"],
      ["task-paused", "paused"],
    ] as const) {
      addTask(database, id, status);
    }
    const events: AgentEvent[] = [];
    const broker = new ApprovalBroker({ database, onEvent: (event) => events.push(event) });
    const stopped = broker.request(question("task-stopped"));
    // The other three are answered by nobody in this test; only the withdrawn one settles.
    const others = ["task-done", "task-live", "task-paused"].map((id) => broker.request(question(id)));
    expect(others).toHaveLength(3);
    expect(broker.pendingFor("owner")).toHaveLength(4);

    setTaskStatus(database, "task-stopped", "cancelled");
    setTaskStatus(database, "task-done", "completed");
    const pending = broker.pendingFor("owner").map((record) => record.task_id);
    expect(pending.sort()).toEqual(["task-live", "task-paused"]);
    // Whoever still waited on the withdrawn question hears that nothing was run.
    await expect(stopped).resolves.toMatchObject({
      status: "expired",
      message: expect.stringMatching(/task ended/),
    });
    expect(events.filter((event) => event.type === "approval-resolved")).toHaveLength(2);

    // A restarted daemon asks only the questions of tasks that can still go on.
    const restarted = new ApprovalBroker({ database, onEvent: () => {} });
    setTaskStatus(database, "task-paused", "failed");
    expect(restarted.pendingForRestart().map((record) => record.task_id)).toEqual(["task-live"]);
    broker.close();
    restarted.close();
    database.close();
  });
});
