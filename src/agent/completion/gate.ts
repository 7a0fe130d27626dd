import type { FileChange } from "../events.js";
import type { TaskState } from "../state.js";
import { delegationClaimStart } from "../subagents/unchecked.js";
import { type ChangeReport, type ChangeTracker, workspaceFingerprint } from "./changes.js";
import { type CheckChange, describeCheckChanges } from "./check-changes.js";
import { claimsInAnswer, taskActions, unsupportedClaim } from "./claims.js";
import { freshCheck } from "./fresh-check.js";
import { wasRecordedNow } from "./run-records.js";
import { describeRun, type OutputVerdict, passed } from "./test-summary.js";
import type { VerificationCommand } from "./verification.js";

export const maxVerificationFixRounds = 2;

export type VerificationLookup =
  | { ok: true; command: VerificationCommand | null }
  | { ok: false; error: string };

export interface VerificationRun {
  /** Set when the authorizer refused the command: a refusal is not evidence. */
  refused?: string;
  /** Set when the task was stopped while it ran (Ctrl+C, the watchdog): no result, so no record. */
  interrupted?: true;
  exitCode: number | null;
  output: string;
}

export interface GateInput {
  state: TaskState;
  changes: ChangeTracker | undefined;
  verification: VerificationLookup;
  runVerification(command: string): Promise<VerificationRun>;
  /** What the task changed about its own checks since the baseline (see check-changes.ts). */
  checkChanges?(report: ChangeReport): Promise<CheckChange[]>;
  /**
   * The user's explicit approval of those changes (an answered question, or
   * --accept-check-changes); never implied by --yes or "continue".
   */
  acceptCheckChanges?(changes: CheckChange[]): Promise<boolean>;
  /** Why the check's pass is an old build's (nothing rebuilt what it runs), or null. */
  staleOutputs?(files: FileChange[]): Promise<string | null>;
  /** True when the task's folder is no project (no manifest, no checks): changes complete unchecked. */
  plainFolder?: boolean;
  /** The project above the task's subfolder, when the subfolder has no check of its own. */
  enclosingProject?: { folder: string; manifest: string; check: string | null };
}

export type GateDecision =
  | { kind: "responded"; files: FileChange[]; note?: string }
  | { kind: "completed"; files: FileChange[]; note?: string; checksChanged?: CheckChange[] }
  | { kind: "fix"; note: string; files: FileChange[] }
  | { kind: "failed"; reason: string; files: FileChange[] }
  | { kind: "paused"; reason: string; files: FileChange[]; checksChanged?: CheckChange[] };

export const noChecksNote = "no checks to run here";

/**
 * The evidence gate, run when the model ends its turn. "completed" needs a verification that exited
 * 0 after the last change; a failure is fed back for a bounded number of fix rounds; no way to
 * verify pauses and says why. With no change confirmed by git or the snapshot, the task responded.
 */
export async function evidenceGate(input: GateInput): Promise<GateDecision> {
  const judged = await judge(input);
  const checked = judged.kind === "completed" ? await notStale(input, judged) : judged;
  const decision = checked.kind === "completed" ? finishedDelegations(input.state, checked) : checked;
  if (decision.kind !== "completed" || !input.checkChanges || !input.changes) return decision;
  // The judge is fixed at the start: a task that changed how it is checked is not done on its own.
  const changes = await input.checkChanges(await input.changes.report());
  if (changes.length === 0) return decision;
  if (input.acceptCheckChanges && (await input.acceptCheckChanges(changes)))
    return { ...decision, checksChanged: changes };
  return {
    kind: "paused",
    reason:
      `the task changed how its work is checked: ${describeCheckChanges(changes)}. ` +
      "A passing check proves nothing after its definition or its existing tests changed, so this needs your approval: " +
      'review the changes, then accept them (answer the question, or run `mercury run "continue" --session <id> --accept-check-changes`) or undo them.',
    files: decision.files,
    checksChanged: changes,
  };
}

/**
 * A sub-agent that failed, was stopped, or whose own check failed did not do what it was asked, and
 * the parent's passing check runs the parent's project, not that work (a subproject, a feature no test
 * covers): while no change of the parent's followed it, the task is not completed (session 12).
 */
function finishedDelegations(
  state: TaskState,
  decision: Extract<GateDecision, { kind: "completed" }>,
): GateDecision {
  const unfinished = state.uncheckedClaims.findLast(
    (claim) =>
      claim.change === true &&
      claim.sequence >= state.lastChangeSequence &&
      claim.why.startsWith(delegationClaimStart),
  );
  if (!unfinished) return decision;
  return {
    kind: "paused",
    reason:
      `${unfinished.why}; the task's check passing does not show that work done. ` +
      'Do it (or delegate it again), then say "continue".',
    files: decision.files,
  };
}

/** A pass from a build nothing remade is a fix round (build, check again), then a pause. */
async function notStale(
  input: GateInput,
  decision: Extract<GateDecision, { kind: "completed" }>,
): Promise<GateDecision> {
  const stale = input.staleOutputs ? await input.staleOutputs(decision.files) : null;
  if (stale === null) return decision;
  const { state } = input;
  if (state.verificationFixRounds >= maxVerificationFixRounds)
    return {
      kind: "paused",
      reason: `${stale}. Build the project and run the check again (or check the changes yourself), then say "continue".`,
      files: decision.files,
    };
  state.verificationFixRounds += 1;
  return {
    kind: "fix",
    note: `[Mercury] The task is not done: ${stale}. Rebuild what the check runs (the project's build step), then run the verification again.`,
    files: decision.files,
  };
}

async function judge(input: GateInput): Promise<GateDecision> {
  const { state } = input;
  if (!input.changes || state.lastChangeSequence < 0) return responded(state, []);
  const report: ChangeReport = await input.changes.report();
  const files = report.files;
  if (report.confirmed && files.length === 0) return responded(state, files);
  const unknown = report.confirmed
    ? ""
    : ` (whether files changed could not be confirmed: ${report.note ?? "unknown"})`;

  // Evidence is for the files it saw: a run after the last recorded change whose files differ from
  // today's (changed by hand, by a process, or by a call a crash cut off) is stale and runs again.
  const now = workspaceFingerprint(report);
  const latest = state.verifications.filter((record) => record.sequence > state.lastChangeSequence).at(-1);
  if (latest && stillHolds(latest, now)) {
    if (passed(latest)) return { kind: "completed", files };
    if (latest.outputSays === "no tests") return ranNoTests(latest.command, files);
    return failedVerification(state, latest, null, files);
  }

  if (!input.verification.ok)
    return { kind: "paused", reason: `cannot verify the changes: ${input.verification.error}`, files };
  const command = input.verification.command;
  if (!command && input.plainFolder && report.confirmed) {
    const claim = claimsInAnswer(state.finalText).find((found) => found.kind === "checks");
    return {
      kind: "completed",
      files,
      note:
        `${noChecksNote} (not a project: no manifest, no test command)` +
        (claim ? `; the answer's claim ("${claim.sentence}") is not verified: no check ran` : ""),
    };
  }
  if (!command && input.enclosingProject) {
    const { folder, manifest, check } = input.enclosingProject;
    const its = check ? `its check \`${check}\`` : "its checks";
    return {
      kind: "paused",
      reason:
        `files changed${unknown} in a subfolder of the project at ${folder} (${manifest}); ${its} run from there, ` +
        "outside this task's folder, so they were not run. Run the task from the project's folder, set a check " +
        'for this folder (agent.verifyCommand), or run the project\'s checks yourself and say "continue".',
      files,
    };
  }
  if (!command) {
    return {
      kind: "paused",
      reason:
        `files changed${unknown} but no verification command was found (looked for package.json scripts test/typecheck/build/check, ` +
        'a Makefile "test" target, Cargo.toml, go.mod, pyproject.toml). Configure one, or check the changes yourself; say "continue" to resume.',
      files,
    };
  }
  const ran = await freshCheck(input, command.command, now, files);
  if ("decision" in ran) return ran.decision;
  const { record } = ran;
  if (passed(record)) return { kind: "completed", files };
  if (record.outputSays === "no tests") return ranNoTests(command.command, files);
  return failedVerification(state, record, ran.output, files);
}

/**
 * Whether a run after the last change is evidence for the files now. Known fingerprints decide. Without
 * one (an unconfirmed picture, an older record) only a run of this very process counts, by the order of
 * its calls: a record loaded from the ledger was written before an interruption (kill -9 before the
 * outcome was written, Ctrl+C, a daemon restart), and the files may have changed by hand since (session 12).
 */
function stillHolds(record: { fingerprint?: string }, now: string | null): boolean {
  if (record.fingerprint !== undefined && now !== null) return record.fingerprint === now;
  return wasRecordedNow(record);
}

/** A check that tested nothing proves nothing: paused, never completed (nor a fix round: no failure to fix). */
function ranNoTests(command: string, files: FileChange[]): GateDecision {
  return {
    kind: "paused",
    reason:
      `the verification \`${command}\` exited 0 but ran no tests, so it proves nothing about the changes. ` +
      'Add tests (or restore the ones removed), or configure a check that tests something (agent.verifyCommand), then say "continue".',
    files,
  };
}

/**
 * Nothing changed, so nothing needs proving; but when the task's last verification run failed, the
 * answer says so beside the model's text, which may claim the opposite (narration is not evidence).
 */
function responded(state: TaskState, files: FileChange[]): GateDecision {
  const last = state.verifications.at(-1);
  // A check that never ran (refused, or a sub-agent's that did not pass) after the last real run:
  // the answer may still say "all tests pass". A change that failed stays unproven whatever ran
  // after it (a check that passes on the code without the change says nothing about the change).
  const unchecked = state.uncheckedClaims.findLast(
    (claim) => !last || claim.sequence > last.sequence || (claim.change === true && passed(last)),
  );
  if (unchecked)
    return {
      kind: "responded",
      files,
      note: `nothing was changed; ${unchecked.why}, so nothing the answer says about it is verified`,
    };
  if (!last || passed(last)) {
    // Nothing else to say: the answer's own words are read for a claim no fact of the task bears out.
    const claim = unsupportedClaim(state.finalText, taskActions(state.ownMessages()), last !== undefined);
    return claim ? { kind: "responded", files, note: claim } : { kind: "responded", files };
  }
  const how = last.exitCode === null ? "did not finish" : describeRun(last);
  return {
    kind: "responded",
    files,
    note: `nothing was changed; the last verification run \`${last.command}\` ${how}, whatever the answer says`,
  };
}

function failedVerification(
  state: TaskState,
  run: { command: string; exitCode: number | null; outputSays?: OutputVerdict | undefined },
  output: string | null,
  files: FileChange[],
): GateDecision {
  const { command } = run;
  const how = describeRun(run);
  if (state.verificationFixRounds >= maxVerificationFixRounds) {
    return {
      kind: "failed",
      reason: `verification failed: \`${command}\` ${how} after the last change (${state.verificationFixRounds} fix round(s) tried)`,
      files,
    };
  }
  state.verificationFixRounds += 1;
  const tail = output === null ? "" : `\n${failureExcerpt(output)}`;
  return {
    kind: "fix",
    note:
      `[Mercury] The task is not done: the verification \`${command}\` ${how} after your last change.${tail}\n` +
      "Fix the cause with tool calls, then run the verification again. If you cannot fix it, say exactly what blocks you.",
    files,
  };
}

const failureLine = /\b(fail(ed|ure|ing|s)?|errors?|exception|panic(ked)?|assert(ion)?)\b|[✗✘×]/i;
const excerptLines = 40;

/**
 * What the model is shown of a failed run: its start, the lines that name a failure wherever they
 * are, and its end. The end alone hid a failure printed early in a long output (a summary last).
 */
export function failureExcerpt(output: string, limit = 4000): string {
  if (output.length <= limit) return `Output:\n${output}`;
  const head = output.slice(0, 800);
  const tail = output.slice(-2400);
  const middle = output.slice(800, -2400).split("\n");
  const hits = middle.filter((line) => failureLine.test(line)).slice(0, excerptLines);
  const named = hits.map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line)).join("\n");
  return (
    `Output (start):\n${head}\n` +
    (hits.length > 0 ? `Lines naming a failure in the omitted middle:\n${named}\n` : "") +
    `Output (end):\n${tail}`
  );
}
