import type { FileChange } from "../events.js";
import type { TaskState } from "../state.js";
import { workspaceFingerprint } from "./changes.js";
import type { GateDecision, GateInput } from "./gate.js";
import { checkedFingerprint, recordedNow } from "./run-records.js";
import { readTestOutput } from "./test-summary.js";

export type CheckRecord = TaskState["verifications"][number];

type Ran = { record: CheckRecord; output: string; rewrote: boolean } | { decision: GateDecision };

/** One run of the judge by the gate, recorded; a refusal or an interruption is its decision instead. */
async function runOnce(
  input: GateInput,
  command: string,
  before: string | null,
  files: FileChange[],
): Promise<Ran> {
  const { state } = input;
  const sequence = ++state.callSequence;
  const run = await input.runVerification(command);
  if (run.refused !== undefined) {
    state.uncheckedClaims.push({
      sequence,
      why: `the verification \`${command}\` was refused and never ran`,
    });
    return {
      decision: {
        kind: "paused",
        reason: `files changed but the verification \`${command}\` was refused: ${run.refused}. Allow it (or run it yourself) and say "continue".`,
        files,
      },
    };
  }
  if (run.interrupted)
    return {
      decision: {
        kind: "paused",
        reason: `the verification \`${command}\` was interrupted before it finished; its result is unknown`,
        files,
      },
    };
  const after = input.changes ? workspaceFingerprint(await input.changes.report()) : null;
  const fingerprint = checkedFingerprint(before, after);
  const says = run.exitCode === 0 ? readTestOutput(run.output) : null;
  const record = {
    command,
    exitCode: run.exitCode,
    sequence,
    ...(fingerprint ? { fingerprint } : {}),
    ...(says ? { outputSays: says } : {}),
  };
  state.verifications.push(recordedNow(record));
  return { record, output: run.output, rewrote: fingerprint !== after };
}

/**
 * The gate's own run of the judge on the files as they are (`before`: their fingerprint). A run that
 * changed them is run once more on what it left (a first run's caches settle); a check that changes
 * the files every time it runs proves nothing about any of them, and pauses.
 */
export async function freshCheck(
  input: GateInput,
  command: string,
  before: string | null,
  files: FileChange[],
): Promise<Ran> {
  const first = await runOnce(input, command, before, files);
  if ("decision" in first || !first.rewrote || first.record.exitCode !== 0) return first;
  const after = workspaceFingerprint(await (input.changes as NonNullable<GateInput["changes"]>).report());
  const second = await runOnce(input, command, after, files);
  if ("decision" in second || !second.rewrote) return second;
  return {
    decision: {
      kind: "paused",
      reason:
        `the verification \`${command}\` changes the files it checks each time it runs, so no run of it shows the files as they are now. ` +
        'Find what the check writes (a hook or test the task added?), undo it, then say "continue".',
      files,
    },
  };
}
