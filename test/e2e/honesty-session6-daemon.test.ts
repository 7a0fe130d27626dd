import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { ServerPush } from "../../src/daemon/client.js";
import { daemonHome, subscribe, waitFor } from "../daemon/daemon-helpers.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";

const fixture = useDaemonFixture({ stopDaemon: true });

function approvalRequests(pushes: ServerPush[]): { approvalId: string; summary: string }[] {
  return pushes.flatMap((push) => {
    if (push.type !== "event") return [];
    const event = push.event as { type: string; approvalId?: string; summary?: string };
    return event.type === "approval-request"
      ? [{ approvalId: event.approvalId ?? "", summary: event.summary ?? "" }]
      : [];
  });
}

/** The daemon's workspace as a committed git project whose suite passes. */
function project(workspace: string): void {
  writeFileSync(join(workspace, "package.json"), JSON.stringify({ name: "p", scripts: { test: "exit 0" } }));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
      cwd: workspace,
      stdio: "pipe",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
}

describe("an approval that expires (real daemon, loopback model)", () => {
  it("the gate's check waits for approval, the time runs out, then a late yes: refused, the task paused, never completed", async () => {
    fixture.current = daemonHome(fixture.server.url);
    const daemon = fixture.current;
    project(daemon.workspace);
    fixture.server.push(
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
      { text: "Done, all tests pass." },
    );
    const started = await daemon.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const client = await daemon.connect();
    const pushes = await subscribe(client);
    const { taskId } = (await client.request({
      type: "submit",
      text: "write a.txt",
      cwd: daemon.workspace,
    })) as {
      taskId: string;
    };
    await waitFor(() => approvalRequests(pushes).length === 1, 15_000, "the verification's approval");
    const [asked] = approvalRequests(pushes);
    expect(asked?.summary).toContain("npm test");
    // The wall clock passes the approval's expiry (a long wait, or the clock set forward).
    const database = new Database(join(daemon.home, "mercury.db"));
    try {
      database
        .prepare("UPDATE approvals SET expires_at = ? WHERE id = ?")
        .run(new Date(Date.now() - 60_000).toISOString(), asked?.approvalId ?? "");
    } finally {
      database.close();
    }
    await expect(
      client.request({ type: "approve", approvalId: asked?.approvalId ?? "", decision: "once" }),
    ).rejects.toThrow(/expired/);
    const statusOf = () =>
      daemon.query<{ status: string; reason: string | null }>(
        "SELECT status, reason FROM tasks WHERE id = ?",
        taskId,
      )[0];
    await waitFor(() => statusOf()?.status === "paused", 15_000, "the task to pause");
    expect(statusOf()?.reason).toContain("the verification `npm test` was refused");
    expect(statusOf()?.reason).toMatch(/expired/);
    expect(
      daemon.query<{ status: string }>(
        "SELECT status FROM approvals WHERE id = ?",
        asked?.approvalId ?? "",
      )[0],
    ).toEqual({ status: "expired" });
    client.close();
  });
});
