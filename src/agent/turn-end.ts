/**
 * The end of a model turn with no tool call: the evidence gate's decision as the loop's next move,
 * the lazily loaded completion modules, and the evidence a resumed run starts with.
 */
import type { VerificationLookup } from "./completion/gate.js";
import type { ToolRunner } from "./completion/tool-runner.js";
import type { StallWatchdog } from "./completion/watchdog.js";
import { interruptedToolMessage } from "./ledger-repair.js";
import { stopped } from "./loop-endings.js";
import type { Ending, LoopDependencies } from "./loop-types.js";
import type { TaskState } from "./state.js";

/**
 * The evidence gate (with the change tracker's diff and the check-change rules under it) and the
 * budget verdict run after a model answer, never before the first request: they load then, once per
 * process. The watchdog is suspended while they load, so loading code is never counted as a stall.
 */
let completionLoad:
  | Promise<[typeof import("./completion/gate.js"), typeof import("./completion/auto-continue.js")]>
  | undefined;

export async function completionModules(watchdog: StallWatchdog) {
  const [gate, autoContinue] = completionLoad
    ? await completionLoad
    : await watchdog.whileWaiting(() => {
        completionLoad = Promise.all([
          import("./completion/gate.js"),
          import("./completion/auto-continue.js"),
        ]);
        return completionLoad;
      });
  return { evidenceGate: gate.evidenceGate, budgetExhausted: autoContinue.budgetExhausted };
}

/**
 * A change a crash cut off (kill -9 during a command) had an unknown effect: when the resumed run then
 * changes nothing and only says "done", the answer carries it (session 9: it read as a plain answer).
 * A later passing check does not bear it out: the check ran on whatever the cut-off call left.
 */
export function claimCutOffChanges(deps: LoopDependencies, state: TaskState): void {
  for (const failure of state.toolErrors) {
    if (failure.step !== 0 || failure.error !== interruptedToolMessage) continue;
    if (!deps.tools.some((tool) => tool.name === failure.toolName && tool.mutating)) continue;
    state.uncheckedClaims.push({
      sequence: state.callSequence,
      why: `${failure.toolName} was cut off by a crash before it finished (its effect is unknown)`,
      change: true,
    });
  }
}

export function lookupVerification(deps: LoopDependencies): VerificationLookup {
  if (!deps.verification) return { ok: true, command: null };
  try {
    return { ok: true, command: deps.verification() };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The evidence gate at the end of a model turn, as the loop's next move: null for a fix round (the
 * note is in the history, the loop goes on), else how the task ends.
 */
export async function gateEnding(
  deps: LoopDependencies,
  state: TaskState,
  watchdog: StallWatchdog,
  signal: AbortSignal,
  runner: ToolRunner,
  verification: VerificationLookup,
  step: number,
): Promise<Ending | null> {
  const { evidenceGate } = await completionModules(watchdog);
  const decision = await evidenceGate({
    state,
    changes: deps.changes,
    verification,
    runVerification: (command) => runner.verify(command, step),
    ...(deps.checkChanges ? { checkChanges: deps.checkChanges } : {}),
    ...(deps.staleOutputs ? { staleOutputs: deps.staleOutputs } : {}),
    ...(deps.acceptCheckChanges ? { acceptCheckChanges: deps.acceptCheckChanges } : {}),
    ...(deps.plainFolder ? { plainFolder: true } : {}),
    ...(deps.enclosingProject ? { enclosingProject: deps.enclosingProject } : {}),
  });
  deps.recordEvidence?.();
  if (signal.aborted) return stopped(state, watchdog);
  switch (decision.kind) {
    case "fix":
      deps.emit({
        type: "notice",
        level: "warn",
        message: "verification failed; asking the model to fix it",
      });
      state.append(deps.persist([{ role: "user", content: decision.note }]));
      return null;
    case "responded":
      return {
        endCause: "text-stop",
        outcome: "responded",
        text: state.finalText,
        ...(decision.note ? { reason: decision.note } : {}),
        filesChanged: decision.files,
      };
    case "completed":
      return {
        endCause: "text-stop",
        outcome: "completed",
        text: state.finalText,
        ...(decision.note ? { reason: decision.note } : {}),
        filesChanged: decision.files,
        ...(decision.checksChanged ? { checksChanged: decision.checksChanged } : {}),
      };
    case "failed":
      return {
        endCause: "text-stop",
        outcome: "failed",
        text: state.finalText,
        reason: decision.reason,
        filesChanged: decision.files,
      };
    case "paused":
      return {
        endCause: "text-stop",
        outcome: "paused",
        text: state.finalText,
        reason: decision.reason,
        filesChanged: decision.files,
        ...(decision.checksChanged ? { checksChanged: decision.checksChanged } : {}),
      };
  }
}
