import type { TaskEvidenceStore } from "./evidence.js";
import type { WorkLedger } from "./ledger.js";

/**
 * What a new task in a session must say about the session's latest other task, when that one's work
 * is not known to be good: it is failed, paused or was left running ("continue" resumes it), or it
 * was cancelled after changing files that no passing check followed. A stopped task is never resumed,
 * so a "continue" (or "weiter", or "carry on with the tests") after a Ctrl-C starts a new task, and
 * that task's "all tests pass" with no check of its own read as if the stopped work were verified.
 * Null when there is nothing to say.
 */
export function unfinishedInSession(
  ledger: WorkLedger,
  evidence: TaskEvidenceStore,
  sessionId: string,
  taskId: string,
): string | null {
  const earlier = ledger.latestOtherInSession(sessionId, taskId);
  if (earlier === null) return null;
  if (["paused", "failed", "running", "queued"].includes(earlier.status))
    return `the earlier task ${earlier.id} in this session is ${earlier.status}${earlier.reason ? ` (${earlier.reason})` : ""} and this task ran no check of its work (say "continue" to resume it)`;
  if (earlier.status !== "cancelled") return null;
  const record = evidence.load(earlier.id);
  if (record === null || record.lastChangeSequence < 0) return null;
  const checkedAfter = record.verifications.some(
    (run) => run.sequence > record.lastChangeSequence && run.exitCode === 0 && run.outputSays === undefined,
  );
  if (checkedAfter) return null;
  return `the earlier task ${earlier.id} in this session was cancelled (${earlier.reason ?? "stopped"}) after changing files that no check verified; a stopped task is not resumed, and this task ran no check of its work`;
}
