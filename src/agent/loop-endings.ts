/**
 * How the agent loop ends other than by the evidence gate (turn-end.ts): a stop, a stall, an answer
 * cut by the output limit, the narration guard giving up, a model that failed on every provider.
 */
import type { StepFailure } from "../model/types.js";
import { maxGuardRounds } from "./completion/narration.js";
import type { StallWatchdog } from "./completion/watchdog.js";
import type { Ending, LoopDependencies } from "./loop-types.js";
import type { TaskState } from "./state.js";
import { workSoFar } from "./work-so-far.js";

export function guardPause(state: TaskState, why: string): Ending {
  const failure = state.lastToolFailure;
  const blocker = failure
    ? `the last failed tool call was ${failure.toolName}: ${failure.error}`
    : "no tool failed; the model kept stopping without acting";
  return {
    endCause: "text-stop",
    outcome: "paused",
    text: state.finalText,
    reason: `the model stopped ${maxGuardRounds} times with work left (${why}). Blocker: ${blocker}`,
  };
}

/** Whole seconds, or one decimal under 10 s (short limits in tests and tight configs). */
export function seconds(ms: number): string {
  return ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000));
}

export function truncatedPause(state: TaskState): Ending {
  return {
    endCause: "truncated",
    outcome: "paused",
    text: state.finalText,
    reason: 'the answer kept hitting the output token limit; raise agent.maxOutputTokens or say "continue".',
  };
}

/**
 * What the person already read of an answer cut short stays in the transcript, marked as cut: the
 * next turn's model knows what it said, and a resumed session shows it. Nothing is kept when no
 * text had streamed.
 */
export function keepInterruptedText(deps: LoopDependencies, state: TaskState, streamed: string): void {
  if (streamed.trim() === "") return;
  // Not the task's answer (`text` of the report): a cut-off reply is not one.
  state.append(deps.persist([{ role: "assistant", content: `${streamed}\n\n[interrupted here]` }]));
}

export function stopped(state: TaskState, watchdog: StallWatchdog): Ending {
  if (watchdog.fired) {
    return {
      endCause: "aborted",
      outcome: "paused",
      text: state.finalText,
      reason: `stalled: no activity for ${seconds(watchdog.idleMs)} s. Say "continue" to resume.`,
    };
  }
  return { endCause: "aborted", outcome: "cancelled", text: state.finalText, reason: "stopped by the user" };
}

const outputLimitRejection =
  /max_tokens|max_output_tokens|max_completion_tokens|maximum context|context length|too many (output )?tokens/i;

export function rejectsOutputLimit(result: StepFailure): boolean {
  return result.failures.some(
    (failure) => failure.status === 400 && outputLimitRejection.test(failure.cause),
  );
}

export function modelFailure(result: StepFailure, state: TaskState, deps: LoopDependencies): Ending {
  deps.emit({ type: "notice", level: "error", message: result.message });
  return {
    endCause: "interrupted",
    outcome: "failed",
    text: state.finalText,
    reason: `${result.message}${workSoFar(state)}`,
  };
}
