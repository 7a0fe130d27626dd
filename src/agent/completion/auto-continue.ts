import type { LoopDependencies } from "../loop-types.js";
import type { TaskState } from "../state.js";
import type { StallWatchdog } from "./watchdog.js";

export const maxContinuations = 6;

export interface BudgetPause {
  endCause: "steps-exhausted";
  outcome: "paused";
  text: string;
  reason: string;
}

/** Fresh budget while progress is made (at most maxContinuations, asking before the last); else pause. */
export async function budgetExhausted(
  deps: LoopDependencies,
  state: TaskState,
  watchdog: StallWatchdog,
): Promise<BudgetPause | null> {
  const pause = (why: string): BudgetPause => ({
    endCause: "steps-exhausted",
    outcome: "paused",
    text: state.finalText,
    reason: `the step budget (${deps.maxSteps} steps) ran out while the task was still calling tools; ${why}. Say "continue" to resume.`,
  });
  if (!state.progressSince(state.progressMark))
    return pause("no progress since the last budget (no successful change, no plan item closed)");
  if (state.continuations >= maxContinuations)
    return pause(`it was already continued ${maxContinuations} times`);
  if (state.continuations === maxContinuations - 1) {
    if (!deps.askUser)
      return pause("the last automatic continuation needs your OK and nobody could be asked");
    const answer = await watchdog.whileWaiting(() =>
      (deps.askUser as NonNullable<LoopDependencies["askUser"]>)(
        `The task has used ${state.steps} steps and is still making progress. Continue with one last budget of ${deps.maxSteps} steps?`,
        ["continue", "stop"],
      ),
    );
    if (!/^\s*(continue|yes|y|ok)\b/i.test(answer)) return pause(`you answered "${answer}" to continuing`);
  }
  state.continuations += 1;
  state.budgetStartStep = state.steps;
  state.progressMark = state.markNow();
  deps.emit({
    type: "notice",
    level: "info",
    message: `step budget used up while making progress; continuing (${state.continuations}/${maxContinuations})`,
  });
  return null;
}
