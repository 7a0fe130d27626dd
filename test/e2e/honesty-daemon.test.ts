import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ServerPush } from "../../src/daemon/client.js";
import { daemonHome, killHard, pidFromStart, subscribe, waitFor } from "../daemon/daemon-helpers.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";

const fixture = useDaemonFixture();

function approvalRequests(pushes: ServerPush[]): { approvalId: string; summary: string }[] {
  return pushes.flatMap((push) => {
    if (push.type !== "event") return [];
    const event = push.event as { type: string; approvalId?: string; summary?: string };
    return event.type === "approval-request"
      ? [{ approvalId: event.approvalId ?? "", summary: event.summary ?? "" }]
      : [];
  });
}

/** The daemon's workspace as a committed git project whose suite exits `code`. */
function project(workspace: string, code = 0): void {
  writeFileSync(
    join(workspace, "package.json"),
    JSON.stringify({ name: "p", scripts: { test: `exit ${code}` } }),
  );
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
      cwd: workspace,
      stdio: "pipe",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
}

describe("the daemon killed during the gate's approval wait (real processes)", () => {
  it("after the restart the check is asked again; denied, the task pauses with the refusal, never completed", async () => {
    fixture.current = daemonHome(fixture.server.url);
    project(fixture.current.workspace);
    fixture.server.push(
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
      { text: "Done, all tests pass." },
    );
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const before = await fixture.current.connect();
    const beforePushes = await subscribe(before);
    const { taskId } = (await before.request({
      type: "submit",
      text: "write a.txt",
      cwd: fixture.current.workspace,
    })) as {
      taskId: string;
    };
    await waitFor(() => approvalRequests(beforePushes).length === 1, 15_000, "the verification's approval");
    expect(approvalRequests(beforePushes)[0]?.summary).toContain("npm test");
    before.close();
    await killHard(pidFromStart(started.stdout));

    fixture.server.push({ text: "Done, all tests pass." }, { text: "Done, all tests pass." });
    const restarted = await fixture.current.cli(["start"]);
    expect(restarted.code, restarted.stderr).toBe(0);
    const after = await fixture.current.connect();
    const afterPushes = await subscribe(after);
    // The approval pending at the crash is announced again, and the resumed run's gate asks anew:
    // every request for the check is denied as it comes, until the task stops.
    const denied = new Set<string>();
    const daemon = fixture.current;
    await waitFor(
      async () => {
        for (const request of approvalRequests(afterPushes)) {
          if (denied.has(request.approvalId) || !request.summary.includes("npm test")) continue;
          denied.add(request.approvalId);
          await after.request({ type: "approve", approvalId: request.approvalId, decision: "deny" });
        }
        return (
          daemon.query<{ status: string }>("SELECT status FROM tasks WHERE id = ?", taskId)[0]?.status ===
          "paused"
        );
      },
      15_000,
      "the resumed task to pause",
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}\n${JSON.stringify(daemon.query("SELECT status, reason FROM tasks"))}`,
      );
    });
    expect(denied.size).toBeGreaterThan(0);
    const [row] = fixture.current.query<{ status: string; reason: string }>(
      "SELECT status, reason FROM tasks WHERE id = ?",
      taskId,
    );
    expect(row?.reason).toContain("the verification `npm test` was refused");
    after.close();
  });

  it("'continue' in chat after the task failed its checks resumes that task; the model's claim does not complete it", async () => {
    fixture.current = daemonHome(fixture.server.url);
    project(fixture.current.workspace, 1);
    fixture.server.push(
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
      { text: "Done, all tests pass." },
      { text: "Done, all tests pass." },
      { text: "Done, all tests pass." },
    );
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const client = await fixture.current.connect();
    const pushes = await subscribe(client);
    const approved = new Set<string>();
    const daemon = fixture.current;
    const statusOf = (id: string) =>
      daemon.query<{ status: string }>("SELECT status FROM tasks WHERE id = ?", id)[0]?.status;
    /** Approves every check the task asks to run, until it reaches `status`. */
    const settle = (id: string, status: string) =>
      waitFor(
        async () => {
          for (const request of approvalRequests(pushes)) {
            if (approved.has(request.approvalId)) continue;
            approved.add(request.approvalId);
            await client.request({ type: "approve", approvalId: request.approvalId, decision: "once" });
          }
          return statusOf(id) === status;
        },
        15_000,
        `task ${id} to be ${status}`,
      );
    const { taskId } = (await client.request({
      type: "submit",
      text: "fix it",
      cwd: fixture.current.workspace,
    })) as {
      taskId: string;
    };
    await settle(taskId, "failed");

    fixture.server.push(...Array.from({ length: 4 }, () => ({ text: "Fixed now, all tests pass." })));
    const resumed = (await client.request({
      type: "submit",
      text: "continue",
      cwd: fixture.current.workspace,
    })) as {
      taskId: string;
    };
    expect(resumed.taskId).toBe(taskId);
    // submit marks it running before it answers; it ends failed again, judged on its change.
    await settle(taskId, "failed");
    const [row] = fixture.current.query<{ reason: string; continuations: number }>(
      "SELECT reason, continuations FROM tasks WHERE id = ?",
      taskId,
    );
    expect(row?.reason).toContain("verification failed: `npm test` exited 1");
    expect(row?.continuations).toBe(1);
    client.close();
  });
});
