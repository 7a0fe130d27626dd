import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ServerPush } from "../../src/daemon/client.js";
import {
  type DaemonHome,
  daemonHome,
  killHard,
  pidFromStart,
  subscribe,
  waitFor,
} from "../daemon/daemon-helpers.js";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";

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
function passingProject(workspace: string): void {
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

describe("the daemon killed during the gate's approval wait (real processes)", () => {
  it("after the restart the check is asked again; denied, the task pauses with the refusal, never completed", async () => {
    current = daemonHome(server.url);
    passingProject(current.workspace);
    server.push(
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a\n" } }] },
      { text: "Done, all tests pass." },
    );
    const started = await current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const before = await current.connect();
    const beforePushes = await subscribe(before);
    const { taskId } = (await before.request({
      type: "submit",
      text: "write a.txt",
      cwd: current.workspace,
    })) as {
      taskId: string;
    };
    await waitFor(() => approvalRequests(beforePushes).length === 1, 15_000, "the verification's approval");
    expect(approvalRequests(beforePushes)[0]?.summary).toContain("npm test");
    before.close();
    await killHard(pidFromStart(started.stdout));

    server.push({ text: "Done, all tests pass." }, { text: "Done, all tests pass." });
    const restarted = await current.cli(["start"]);
    expect(restarted.code, restarted.stderr).toBe(0);
    const after = await current.connect();
    const afterPushes = await subscribe(after);
    // The approval pending at the crash is announced again, and the resumed run's gate asks anew:
    // every request for the check is denied as it comes, until the task stops.
    const denied = new Set<string>();
    const daemon = current;
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
    const [row] = current.query<{ status: string; reason: string }>(
      "SELECT status, reason FROM tasks WHERE id = ?",
      taskId,
    );
    expect(row?.reason).toContain("the verification `npm test` was refused");
    after.close();
  });
});
