import { describe, expect, it } from "vitest";
import { daemonHome, killHard, pidFromStart, waitFor } from "../daemon/daemon-helpers.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";

const fixture = useDaemonFixture();

interface RunRow {
  id: string;
  status: string;
  outcome: string | null;
  task_id: string | null;
  attempts: number;
  timing: string;
}

function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const users = messages.filter((message) => message.role === "user");
  const last = users[users.length - 1]?.content;
  return typeof last === "string" ? last : JSON.stringify(last);
}

// Real processes on a shared 2-core machine: the harness limit is generous; nothing asserts on time.
describe("scheduler crash recovery (real processes)", { timeout: 120_000 }, () => {
  it("kill -9 of the daemon mid-run: the next start resumes that run once, never a second execution", async () => {
    fixture.current = daemonHome(fixture.server.url, { MERCURY_SCHEDULER_TICK_MS: "50" });
    const added = await fixture.current.cli([
      "schedule",
      "add",
      "every 60 minutes",
      "write the scheduled report",
      "--workspace",
      fixture.current.workspace,
      "--deliver",
      "none",
      "--json",
    ]);
    expect(added.code, added.stderr).toBe(0);
    const jobId = (JSON.parse(added.stdout) as { job: { id: string } }).job.id;

    fixture.server.push({ hang: true, text: ["Starting the report"] });
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const pid = pidFromStart(started.stdout);
    const queued = await fixture.current.cli(["schedule", "run-now", jobId, "--json"]);
    expect(queued.code, queued.stderr).toBe(0);
    expect(JSON.parse(queued.stdout)).toMatchObject({ executedBy: "daemon" });
    await waitFor(() => fixture.server.chatRequests().length >= 1, 15_000, "the run's first model request");
    expect(fixture.current.query<RunRow>("SELECT * FROM scheduled_runs WHERE job_id = ?", jobId)).toEqual([
      expect.objectContaining({ status: "running", attempts: 1, timing: "manual" }),
    ]);
    await killHard(pid);

    fixture.server.push({ text: "The scheduled report is written." });
    const restarted = await fixture.current.cli(["start"]);
    expect(restarted.code, restarted.stderr).toBe(0);
    await waitFor(
      () =>
        fixture.current?.query<RunRow>("SELECT * FROM scheduled_runs WHERE job_id = ?", jobId)[0]?.status ===
        "finished",
      15_000,
      "the resumed run to finish",
    );
    const runs = fixture.current.query<RunRow>("SELECT * FROM scheduled_runs WHERE job_id = ?", jobId);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "finished", outcome: "responded", attempts: 1 });
    const [task] = fixture.current.query<{ status: string; resumes: number; channel: string }>(
      "SELECT status, resumes, channel FROM tasks WHERE id = ?",
      runs[0]?.task_id,
    );
    expect(task).toEqual({ status: "responded", resumes: 1, channel: "schedule" });
    // Resumed once, not re-run: two model requests in all, the second a resume of the same task.
    expect(fixture.server.chatRequests()).toHaveLength(2);
    expect(lastUserText(fixture.server.chatRequests()[1]?.body)).toContain("[resume after restart]");
    expect(lastUserText(fixture.server.chatRequests()[1]?.body)).toContain("write the scheduled report");

    const history = await fixture.current.cli(["schedule", "history", jobId, "--json"]);
    expect(history.code, history.stderr).toBe(0);
    const parsed = JSON.parse(history.stdout) as {
      runs: { outcome: string; usage: { inputTokens: number } }[];
    };
    expect(parsed.runs).toHaveLength(1);
    expect(parsed.runs[0]?.outcome).toBe("responded");
    expect(parsed.runs[0]?.usage.inputTokens).toBeGreaterThan(0);
  });
});
