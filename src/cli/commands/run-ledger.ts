import { isContinueRequest } from "../../agent/continue-request.js";
import { LedgerError, WorkLedger } from "../../agent/ledger.js";
import { adoptProcessGroups } from "../../agent/process-ledger.js";
import type { TaskReport } from "../../agent/runtime.js";
import { claimTask, liveOwner } from "../../agent/task-owner.js";
import type { MercuryApp } from "../../app/container.js";

export interface LedgerRun {
  taskId: string;
  sessionId: string;
  ledger: WorkLedger;
  /** Ends this process's claim on the task (task-owner.ts); finishLedgerRun calls it. */
  release: () => void;
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
      const owner = liveOwner(app.home, resumable.id);
      if (owner)
        throw new LedgerError(
          `task ${resumable.id} is still running in another Mercury process (pid ${owner.pid}); wait for it to end or stop it there, then say "continue"`,
        );
      const stopped = resumable.status === "paused" || resumable.status === "failed";
      // Claimed before the row says "running" and kept until the row says how it ended: a daemon
      // starting or stopping in between (while the model loads) must see a live owner, not a crash.
      const release = claimed(app.home, resumable.id, () =>
        ledger.markRunning(resumable.id, stopped ? "continuation" : "resume"),
      );
      return { taskId: resumable.id, sessionId: resumable.sessionId, ledger, release };
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
  const release = claimed(app.home, task.id, () => ledger.markRunning(task.id, "first"));
  return { taskId: task.id, sessionId, ledger, release };
}

function claimed(home: string, taskId: string, markRunning: () => void): () => void {
  const release = claimTask(home, taskId);
  try {
    markRunning();
  } catch (error) {
    release();
    throw error;
  }
  return release;
}

/** Records how the run ended; a run that threw is recorded as failed with the cause. */
export function finishLedgerRun(run: LedgerRun, report: TaskReport | { error: unknown }): void {
  try {
    if ("error" in report) {
      const cause = report.error instanceof Error ? report.error.message : String(report.error);
      run.ledger.finish(run.taskId, { outcome: "failed", text: "", reason: `the task crashed: ${cause}` });
      return;
    }
    run.ledger.finish(run.taskId, report);
  } finally {
    run.release();
  }
}
