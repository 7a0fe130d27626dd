import type { Check, DoctorCheck } from "./types.js";

/**
 * Scheduled runs marked running whose process is gone (a `schedule run-now` or a daemon killed with
 * kill -9): they wait for a daemon to resume them, which a person may not know to start.
 */
export const scheduleCheck: DoctorCheck = async ({ settings: { paths, home } }) => {
  const [{ openDatabase }, { JobStore }, { runInterrupted }, { systemClock }, { readLiveLock }] =
    await Promise.all([
      import("../../storage/database.js"),
      import("../../scheduler/jobs.js"),
      import("../../scheduler/run-owner.js"),
      import("../../agent/clock.js"),
      import("../../daemon/lock.js"),
    ]);
  const database = openDatabase(paths.database);
  try {
    const store = new JobStore(database, systemClock);
    const interrupted = store.unfinished().filter((run) => runInterrupted(run, home));
    if (interrupted.length === 0) {
      const jobs = store.list().length;
      return [
        { name: "schedule", status: "ok", detail: `${jobs} job${jobs === 1 ? "" : "s"}, no run interrupted` },
      ];
    }
    const daemon = readLiveLock(paths.lock);
    const runs = interrupted.map((run) => `run ${run.id} of ${run.jobId}`).join(", ");
    const check: Check = {
      name: "schedule",
      status: "warn",
      detail: `${runs}: interrupted, the process running ${interrupted.length === 1 ? "it" : "them"} is gone (killed or crashed)`,
      fix: daemon
        ? `the daemon (pid ${daemon.pid}) resumes ${interrupted.length === 1 ? "it" : "them"} at its next tick; \`mercury schedule history <job>\` shows the outcome`
        : "`mercury start`: the daemon resumes interrupted runs when it starts (`mercury schedule remove <job>` first to drop a job instead)",
    };
    return [check];
  } finally {
    database.close();
  }
};
