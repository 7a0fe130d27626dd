import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { daemonHome, killHard, pidFromStart, waitFor } from "../daemon/daemon-helpers.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";

const fixture = useDaemonFixture({ stopDaemon: true });

interface PresentedRun {
  id: string;
  status: string;
  outcome: string | null;
  reason: string | null;
  taskId: string | null;
}

/** The pids the owner files of running tasks name (MERCURY_HOME/running/<task>.json). */
function ownerPids(home: string): number[] {
  let names: string[];
  try {
    names = readdirSync(join(home, "running"));
  } catch {
    return [];
  }
  // A file being written is empty for a moment: it names nobody yet.
  return names.flatMap((name) => {
    const text = readFileSync(join(home, "running", name), "utf8");
    return text === "" ? [] : [(JSON.parse(text) as { pid: number }).pid];
  });
}

// Real processes on a shared 2-core machine: the harness limit is generous; nothing asserts on time.
describe("a scheduled run whose process is killed (session 10)", { timeout: 180_000 }, () => {
  it("run-now killed with kill -9: history, list and doctor say interrupted; the daemon's start resumes the same task", async () => {
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

    fixture.server.push({ hang: true, text: ["Starting the slow report"] });
    const manual = home.cli(["schedule", "run-now", jobId, "--json"]);
    await waitFor(() => fixture.server.chatRequests().length >= 1, 15_000, "the manual run's model request");
    await waitFor(() => ownerPids(home.home).length === 1, 15_000, "the manual run's owner file");
    const [runNowPid] = ownerPids(home.home);
    if (runNowPid === undefined) throw new Error("no owner pid");

    // While its process lives, the run is running.
    const live = JSON.parse((await home.cli(["schedule", "history", jobId, "--json"])).stdout) as {
      runs: PresentedRun[];
    };
    expect(live.runs).toEqual([expect.objectContaining({ status: "running", reason: null })]);

    await killHard(runNowPid);
    await manual;

    const history = JSON.parse((await home.cli(["schedule", "history", jobId, "--json"])).stdout) as {
      runs: PresentedRun[];
    };
    expect(history.runs).toHaveLength(1);
    const [interrupted] = history.runs;
    expect(interrupted).toMatchObject({ status: "interrupted" });
    expect(interrupted?.reason).toContain("the process running it is gone");
    const text = await home.cli(["schedule", "history", jobId]);
    expect(text.stdout).toContain("interrupted");
    expect(text.stdout).toContain("manual  interrupted");
    expect(text.stdout).not.toContain("manual  running");

    const listed = JSON.parse((await home.cli(["schedule", "list", "--json"])).stdout) as {
      jobs: { id: string; interruptedRuns: string[] }[];
    };
    expect(listed.jobs).toEqual([expect.objectContaining({ id: jobId, interruptedRuns: [interrupted?.id] })]);
    expect((await home.cli(["schedule", "list"])).stdout).toContain(`run ${interrupted?.id} interrupted`);

    const doctor = await home.cli(["doctor", "--offline", "--json"]);
    const checks = (
      JSON.parse(doctor.stdout) as {
        checks: { name: string; status: string; detail: string; fix?: string }[];
      }
    ).checks;
    const schedule = checks.find((check) => check.name === "schedule");
    expect(schedule).toMatchObject({ status: "warn" });
    expect(schedule?.detail).toContain(`run ${interrupted?.id} of ${jobId}`);
    expect(schedule?.fix).toContain("mercury start");

    // The work ledger's listing says the same of the run's task.
    const tasks = JSON.parse((await home.cli(["tasks", "--json"])).stdout) as {
      tasks: { id: string; status: string; interrupted: boolean }[];
    };
    expect(tasks.tasks).toEqual([
      expect.objectContaining({ id: interrupted?.taskId, status: "running", interrupted: true }),
    ]);
    expect((await home.cli(["tasks"])).stdout).toMatch(/ {2}interrupted {2}session /);

    // The daemon's start resumes that same run, as the same ledger task.
    fixture.server.push({ text: "The slow report is written." });
    const started = await home.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    pidFromStart(started.stdout);
    await waitFor(
      () =>
        home
          .query<{ status: string }>("SELECT status FROM scheduled_runs WHERE id = ?", interrupted?.id)
          .some((run) => run.status === "finished"),
      30_000,
      "the resumed run to finish",
    );
    const [finished] = home.query<{ outcome: string; task_id: string }>(
      "SELECT outcome, task_id FROM scheduled_runs WHERE id = ?",
      interrupted?.id,
    );
    expect(finished).toMatchObject({ outcome: "responded", task_id: interrupted?.taskId });
    expect(
      home.query<{ resumes: number }>("SELECT resumes FROM tasks WHERE id = ?", interrupted?.taskId),
    ).toEqual([{ resumes: 1 }]);
    expect(fixture.server.chatRequests()).toHaveLength(2);
  });

  it("a run-now killed while the daemon runs is resumed at the daemon's next tick, not at its next start", async () => {
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

    // Without the daemon, this CLI process executes the run; the model never answers it.
    fixture.server.push({ hang: true, text: ["Starting the slow report"] });
    const manual = home.cli(["schedule", "run-now", jobId, "--json"]);
    await waitFor(() => ownerPids(home.home).length === 1, 15_000, "the manual run's owner file");
    const [runNowPid] = ownerPids(home.home);
    if (runNowPid === undefined) throw new Error("no owner pid");

    // The daemon starts beside it and leaves the live run to its process.
    const started = await home.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const daemonPid = pidFromStart(started.stdout);
    await waitFor(
      () => readFileSync(join(home.home, "logs", "daemon.log"), "utf8").includes("left to it"),
      15_000,
      "the daemon to leave the live run alone",
    );
    expect(fixture.server.chatRequests()).toHaveLength(1);

    fixture.server.push({ text: "The slow report is written." });
    await killHard(runNowPid);
    await manual;
    await waitFor(
      () =>
        home
          .query<{ status: string }>("SELECT status FROM scheduled_runs WHERE job_id = ?", jobId)
          .some((run) => run.status === "finished"),
      30_000,
      "the daemon to resume and finish the run",
    );
    expect(
      home.query<{ outcome: string }>("SELECT outcome FROM scheduled_runs WHERE job_id = ?", jobId),
    ).toEqual([{ outcome: "responded" }]);
    // The same daemon did it (no restart), and the run's owner file goes after the run's last
    // write (finished), by design: whoever sees the row running sees its owner too. So it is
    // waited for, not expected at the moment the row says finished.
    expect(home.lockPid()).toBe(daemonPid);
    await waitFor(() => ownerPids(home.home).length === 0, 15_000, "the resumed run's owner file to go");
    expect(readFileSync(join(home.home, "logs", "daemon.log"), "utf8")).toContain(
      "resuming a run whose process is gone",
    );
  });
});
