import { isContinueRequest } from "../../agent/continue-request.js";
import { WorkLedger } from "../../agent/ledger.js";
import { adoptProcessGroups } from "../../agent/process-ledger.js";
import type { TaskReport } from "../../agent/runtime.js";
import { releaseTask } from "../../agent/task-owner.js";
import type { MercuryApp } from "../../app/container.js";

export interface LedgerRun {
  taskId: string;
  sessionId: string;
  ledger: WorkLedger;
  /** MERCURY_HOME, where the run's owner record lives until the run is recorded as finished. */
  home: string;
}

/**
 * Every `mercury run` task is in the work ledger, like the daemon's. "continue" in a session whose
 * latest task is paused (or was left running by a killed process) resumes that task, with its
 * baseline and verification history, instead of starting a new one with no evidence.
 */
export function beginLedgerRun(
  app: MercuryApp,
  entry: { input: string; cwd: string; sessionId?: string | undefined },
): LedgerRun {
  const ledger = new WorkLedger(app.database, app.clock);
  adoptProcessGroups(app.database, app.clock);
  const store = app.agent.transcriptStore;
  if (entry.sessionId && isContinueRequest(entry.input)) {
    const resumable = ledger.resumableInSession(entry.sessionId);
    if (resumable) {
      const stopped = resumable.status === "paused" || resumable.status === "failed";
      // The owner check and the claim are one step (see WorkLedger.claim): refused while another
      // live process runs the task.
      ledger.claim(resumable.id, stopped ? "continuation" : "resume", app.home);
      return { taskId: resumable.id, sessionId: resumable.sessionId, ledger, home: app.home };
    }
  }
  const known = entry.sessionId ? store.getSession(entry.sessionId) : null;
  const sessionId = known ? known.id : store.createSession("owner", "cli", entry.sessionId);
  const task = ledger.create({
    sessionId,
    userKey: "owner",
    channel: "cli",
    input: entry.input,
    cwd: entry.cwd,
  });
  ledger.claim(task.id, "first", app.home);
  return { taskId: task.id, sessionId, ledger, home: app.home };
}

/** Records how the run ended; a run that threw is recorded as failed with the cause. */
export function finishLedgerRun(run: LedgerRun, report: TaskReport | { error: unknown }): void {
  // The claim is released only after the ledger says how the task ended: in between, a daemon
  // starting would see a "running" row with no live owner and resume it as crashed.
  try {
    if ("error" in report) {
      const cause = report.error instanceof Error ? report.error.message : String(report.error);
      run.ledger.finish(run.taskId, { outcome: "failed", text: "", reason: `the task crashed: ${cause}` });
      return;
    }
    run.ledger.finish(run.taskId, report);
  } finally {
    releaseTask(run.home, run.taskId);
  }
}
