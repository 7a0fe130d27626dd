/**
 * A hook through which the command runner reports the process groups it starts and ends, so the
 * work ledger can record them (src/agent/process-ledger.ts) and a later start can kill what a killed
 * Mercury left running. The tools layer knows nothing about the database.
 */
export interface ProcessGroupRecorder {
  started(pgid: number, command: string): void;
  ended(pgid: number): void;
}

let recorder: ProcessGroupRecorder | null = null;

export function setProcessGroupRecorder(next: ProcessGroupRecorder | null): void {
  recorder = next;
}

/** Never throws: a failed record must not fail the command; the warning names the cause. */
export function recordGroupStarted(pgid: number, command: string): void {
  try {
    recorder?.started(pgid, command);
  } catch (error) {
    process.emitWarning(`could not record process group ${pgid}: ${String(error)}`);
  }
}

export function recordGroupEnded(pgid: number): void {
  try {
    recorder?.ended(pgid);
  } catch (error) {
    process.emitWarning(`could not clear the record of process group ${pgid}: ${String(error)}`);
  }
}
