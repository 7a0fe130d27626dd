import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ServerPush } from "../../src/daemon/client.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";
import { daemonHome, killHard, pidFromStart, subscribe, waitFor } from "./daemon-helpers.js";

const fixture = useDaemonFixture();

function approvalRequests(pushes: ServerPush[]): { approvalId: string; summary: string; taskId: string }[] {
  return pushes.flatMap((push) => {
    if (push.type !== "event") return [];
    const event = push.event as { type: string; approvalId?: string; summary?: string; taskId?: string };
    return event.type === "approval-request"
      ? [{ approvalId: event.approvalId ?? "", summary: event.summary ?? "", taskId: event.taskId ?? "" }]
      : [];
  });
}

describe("a pending approval survives kill -9", () => {
  it("is asked again after the restart, and the answer lets the resumed task go on", async () => {
    fixture.current = daemonHome(fixture.server.url);
    fixture.server.push({ toolCalls: [{ name: "run_command", input: { command: "rm -rf build" } }] });
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const before = await fixture.current.connect();
    const beforePushes = await subscribe(before);
    const { taskId } = (await before.request({
      type: "submit",
      text: "clean the build",
      cwd: fixture.current.workspace,
    })) as {
      taskId: string;
    };
    await waitFor(() => approvalRequests(beforePushes).length === 1, 15_000, "the approval request");
    const [asked] = approvalRequests(beforePushes);
    expect(asked?.summary).toContain("rm -rf build");
    before.close();
    await killHard(pidFromStart(started.stdout));

    // The resumed run repeats the same call; the model then finishes.
    fixture.server.push(
      { toolCalls: [{ name: "run_command", input: { command: "rm -rf build" } }] },
      { text: "The build directory is gone." },
    );
    const restarted = await fixture.current.cli(["start"]);
    expect(restarted.code, restarted.stderr).toBe(0);
    const after = await fixture.current.connect();
    const afterPushes = await subscribe(after);
    await waitFor(() => approvalRequests(afterPushes).length >= 1, 15_000, "the approval asked again");
    const again = approvalRequests(afterPushes);
    expect(again.map((request) => request.approvalId)).toContain(asked?.approvalId);
    expect(again.every((request) => request.taskId === taskId)).toBe(true);

    await after.request({ type: "approve", approvalId: asked?.approvalId ?? "", decision: "once" });
    const daemon = fixture.current;
    await waitFor(
      () =>
        daemon.query<{ status: string }>("SELECT status FROM tasks WHERE id = ?", taskId)[0]?.status ===
        "responded",
      15_000,
      "the resumed task to complete",
    ).catch((error: unknown) => {
      const log = daemon.query("SELECT status, reason, resumes FROM tasks");
      throw new Error(
        `${String(error)}\n${JSON.stringify(log)}\n${JSON.stringify(daemon.query("SELECT status, answered_by FROM approvals"))}\nrequests=${fixture.server.chatRequests().length}`,
      );
    });
    expect(fixture.current.query("SELECT status, answered_by FROM approvals")).toEqual([
      { status: "approved", answered_by: "owner" },
    ]);
    after.close();
    expect(existsSync(join(fixture.current.home, "mercury.sock"))).toBe(true);
  });
});
