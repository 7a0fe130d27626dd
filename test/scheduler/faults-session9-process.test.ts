import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { daemonHome, killHard, pidFromStart, waitFor } from "../daemon/daemon-helpers.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";

const fixture = useDaemonFixture({ stopDaemon: true });

interface RunRow {
  id: string;
  status: string;
  outcome: string | null;
  reason: string | null;
  timing: string;
}

/** The pid a live task's owner file names (MERCURY_HOME/running/<task>.json), once there is one. */
function ownerPids(home: string): number[] {
  let names: string[];
  try {
    names = readdirSync(join(home, "running"));
  } catch {
    return [];
  }
  return names.map(
    (name) => (JSON.parse(readFileSync(join(home, "running", name), "utf8")) as { pid: number }).pid,
  );
}

// Real processes on a shared 2-core machine: the harness limit is generous; nothing asserts on time.
describe("scheduler faults across processes (session 9)", { timeout: 120_000 }, () => {
  it("a run that outlives its interval in another process is not stacked by the daemon: the due time is skipped with why", async () => {
    const home = daemonHome(fixture.server.url, { MERCURY_SCHEDULER_TICK_MS: "50" });
    fixture.current = home;
    const added = await home.cli([
      "schedule",
      "add",
      "every 60 minutes",
      "write the slow report",
      "--workspace",
      home.workspace,
      "--deliver",
      "none",
      "--json",
    ]);
    expect(added.code, added.stderr).toBe(0);
    const jobId = (JSON.parse(added.stdout) as { job: { id: string } }).job.id;

    // A manual run without the daemon: this CLI process executes it, and the model never answers.
    fixture.server.push({ hang: true, text: ["Starting the slow report"] });
    const manual = home.cli(["schedule", "run-now", jobId, "--json"]);
    await waitFor(() => fixture.server.chatRequests().length >= 1, 15_000, "the manual run's model request");
    await waitFor(() => ownerPids(home.home).length === 1, 15_000, "the manual run's owner file");
    const [runNowPid] = ownerPids(home.home);

    // The job's next due time comes while that run is still going (as after a clock jump forward).
    const writer = new Database(join(home.home, "mercury.db"));
    writer.prepare("UPDATE scheduled_jobs SET next_due_ms = ? WHERE id = ?").run(Date.now() - 1000, jobId);
    writer.close();
    fixture.server.push({ text: "A second, stacked execution." });
    const started = await home.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    pidFromStart(started.stdout);

    await waitFor(
      () =>
        home
          .query<RunRow>("SELECT * FROM scheduled_runs WHERE job_id = ? AND timing != 'manual'", jobId)
          .some((run) => run.status === "finished"),
      15_000,
      "the daemon to decide the due run",
    );
    const due = home.query<RunRow>(
      "SELECT * FROM scheduled_runs WHERE job_id = ? AND timing != 'manual'",
      jobId,
    );
    expect(due).toEqual([
      expect.objectContaining({
        status: "finished",
        outcome: "skipped",
        reason: "skipped: the previous run of this job was still running",
      }),
    ]);
    // Never a second execution: the only model request is the manual run's.
    expect(fixture.server.chatRequests()).toHaveLength(1);
    const [manualRun] = home.query<RunRow>(
      "SELECT * FROM scheduled_runs WHERE job_id = ? AND timing = 'manual'",
      jobId,
    );
    expect(manualRun).toMatchObject({ status: "running" });

    // Removing the job while that run goes on says the run is still going, rather than a bare "removed".
    const removed = await home.cli(["schedule", "remove", jobId]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`${jobId} is removed.`);
    expect(removed.stdout).toMatch(
      /Its run [0-9a-f-]+ \(started [^)]+\) is still going; it finishes and is reported/,
    );

    if (runNowPid === undefined) throw new Error("no owner pid");
    await killHard(runNowPid);
    await manual;
  });
});
