import type { AttemptUsage, ModelMessage, ModelStepper, StepFailure, StepRequest } from "../model/types.js";
import type { StoredMessage } from "../storage/transcripts.js";
import type { AnyTool, ToolContext } from "../tools/types.js";
import type { BudgetCheck } from "./budget.js";
import type { ChangeReport, ChangeTracker } from "./completion/changes.js";
import type { CheckChange } from "./completion/check-changes.js";
import type { HeapGovernorSettings } from "./completion/compaction.js";
import type { VerificationLookup } from "./completion/gate.js";
import { governBetweenSteps } from "./completion/governors.js";
import { prepareMessages, sumUsage, withoutSdkToolResults } from "./completion/messages.js";
import { guardLevel, guardNote, maxGuardRounds, unfinishedWork } from "./completion/narration.js";
import { ToolRunner } from "./completion/tool-runner.js";
import type { VerificationCommand } from "./completion/verification.js";
import { defaultStallSettings, type StallSettings, StallWatchdog } from "./completion/watchdog.js";
import type { AgentEventBody, EndCause, FileChange, Outcome, VerificationRecord } from "./events.js";
import { boundHistory } from "./history.js";
import { interruptedToolMessage } from "./ledger-repair.js";
import type { TaskState } from "./state.js";
import { workSoFar } from "./work-so-far.js";

export interface LoopDependencies {
  model: ModelStepper;
  tools: readonly AnyTool[];
  systemPrompt: string;
  /**
   * After a memory was forgotten during the task: the history as now stored (redacted) and a fresh
   * system prompt, so no later step sends the forgotten text; null when nothing was forgotten.
   */
  afterForget?(): Promise<{ history: StoredMessage[]; systemPrompt: string } | null>;
  maxSteps: number;
  maxOutputTokens: number;
  /** Tokens of history we may send (context window minus reply and system prompt). */
  historyBudgetTokens: number;
  signal: AbortSignal;
  emit(body: AgentEventBody): void;
  /** Writes messages to the transcript and returns them as stored. */
  persist(messages: ModelMessage[]): StoredMessage[];
  recordUsage(attempts: AttemptUsage[]): void;
  checkBudget(): BudgetCheck;
  /** User messages that arrived while the task ran (steering); each is taken once. */
  takeSteering(): string[];
  toolContext(callId: string): ToolContext;
  /** Stall watchdog limits; defaults 3 min / 8 min. */
  stall?: StallSettings;
  /** Records the files before the first mutating call; absent = no evidence gate (changes unknown). */
  changes?: ChangeTracker;
  /** The project's verification command (configured or detected); may throw on a broken project file. */
  verification?(): VerificationCommand | null;
  /** The chain started at another provider for the n-th rotation (narration guard); null when there is no other. */
  rotatedModel?(rotation: number): ModelStepper | null;
  /** Asks the task's owner (auto-continue before the last fresh budget). */
  askUser?(question: string, choices?: string[]): Promise<string>;
  heap?: HeapGovernorSettings;
  /** What the task changed about its own checks (judge fixed at the start); absent = not checked. */
  checkChanges?(report: ChangeReport): Promise<CheckChange[]>;
  /** Why a pass is an old build's (see completion/stale-output.ts), or null. */
  staleOutputs?(files: FileChange[]): Promise<string | null>;
  /** The user's explicit approval of changed checks. */
  acceptCheckChanges?(changes: CheckChange[]): Promise<boolean>;
  /** The task's folder is no project: changes complete with "no checks to run here". */
  plainFolder?: boolean;
  /** The project above the task's subfolder (see enclosingProject), named when no check is found. */
  enclosingProject?: { folder: string; manifest: string; check: string | null } | null;
  /** Called after every fact the evidence gate relies on (a change, a verification run). */
  recordEvidence?(): void;
}

export interface ToolErrorRecord {
  tool: string;
  error: string;
  step: number;
}

export interface LoopResult {
  endCause: EndCause;
  outcome: Outcome;
  text: string;
  reason?: string;
  filesChanged: FileChange[];
  verification: VerificationRecord[];
  checksChanged: CheckChange[];
  toolErrors: ToolErrorRecord[];
}

type Ending = Omit<LoopResult, "filesChanged" | "verification" | "checksChanged" | "toolErrors"> & {
  filesChanged?: FileChange[];
  checksChanged?: CheckChange[];
};

const maxTruncationContinuations = 3;
const maxTokenReductions = 3;
const truncationNudge =
  "Your previous reply was cut off by the output token limit. Continue exactly where you stopped, without repeating. " +
  "If you were writing a file, write it in smaller sections (several write or edit calls) instead of one large call.";

/**
 * The agent loop: single model steps, tools executed by us, every message persisted as it happens.
 * It never throws for model or tool failures; it returns how the task ended, from facts only, and
 * "completed" only with evidence (see completion/gate.ts).
 */
export async function runAgentLoop(deps: LoopDependencies, state: TaskState): Promise<LoopResult> {
  const stall = deps.stall ?? defaultStallSettings;
  const watchdog = new StallWatchdog(stall, (idleMs) =>
    deps.emit({
      type: "notice",
      level: "info",
      message: `still working (no activity for ${seconds(idleMs)} s)`,
    }),
  );
  const signal = AbortSignal.any([deps.signal, watchdog.signal]);
  state.maxOutputTokens = deps.maxOutputTokens;
  claimCutOffChanges(deps, state);
  const runner = new ToolRunner(deps, state, watchdog, signal);
  watchdog.start();
  try {
    const ending = await loop(deps, state, watchdog, signal, runner);
    let files = ending.filesChanged;
    if (files === undefined && deps.changes && state.lastChangeSequence >= 0)
      files = (await deps.changes.report()).files;
    const { filesChanged: _ignored, checksChanged, ...rest } = ending;
    return {
      ...rest,
      filesChanged: files ?? [],
      verification: state.verifications.map(({ command, exitCode, outputSays }) => ({
        command,
        exitCode,
        ...(outputSays ? { outputSays } : {}),
      })),
      checksChanged: checksChanged ?? [],
      toolErrors: state.toolErrors.map(({ toolName, error, step }) => ({ tool: toolName, error, step })),
    };
  } finally {
    watchdog.stop();
  }
}

async function loop(
  deps: LoopDependencies,
  state: TaskState,
  watchdog: StallWatchdog,
  signal: AbortSignal,
  runner: ToolRunner,
): Promise<Ending> {
  let verification: VerificationLookup | null = null;
  let stepOverrides: Partial<StepRequest> = {};
  let stepModel: ModelStepper = deps.model;
  let tokenReductions = 0;
  for (;;) {
    if (signal.aborted) return stopped(state, watchdog);

    const refreshed = await deps.afterForget?.();
    if (refreshed) {
      state.history = refreshed.history;
      deps.systemPrompt = refreshed.systemPrompt;
    }
    const steering = deps.takeSteering();
    if (steering.length > 0) {
      state.append(deps.persist(steering.map((text) => ({ role: "user", content: text }))));
    }

    const budget = deps.checkBudget();
    if (!budget.ok) {
      deps.emit({ type: "notice", level: "warn", message: `Paused: ${budget.message}` });
      return { endCause: "aborted", outcome: "paused", text: state.finalText, reason: budget.message };
    }
    const governed = await governBetweenSteps(deps, state, signal);
    if (governed) return governed;
    if (signal.aborted) return stopped(state, watchdog);

    state.steps += 1;
    const step = state.steps;
    const messages = prepareMessages(boundHistory(state.history, deps.historyBudgetTokens), state.taskId);
    const request: StepRequest = {
      system: deps.systemPrompt,
      messages,
      tools: [...deps.tools],
      maxOutputTokens: state.maxOutputTokens,
      ...stepOverrides,
    };
    const model = stepModel;
    stepOverrides = {};
    stepModel = deps.model;
    let streamed = "";
    const result = await model.step(request, signal, {
      onStepStart: ({ provider, model: name }) => {
        watchdog.touch();
        deps.emit({ type: "step-start", step, provider, model: name });
      },
      onTextDelta: (text) => {
        watchdog.touch();
        streamed += text;
        deps.emit({ type: "text-delta", text });
      },
      onReasoningDelta: (text) => {
        watchdog.touch();
        deps.emit({ type: "reasoning-delta", text });
      },
      onRetry: (info) => deps.emit({ type: "provider-retry", ...info }),
      onFallback: (info) => deps.emit({ type: "provider-fallback", ...info }),
    });
    watchdog.touch();
    const stepUsage = sumUsage(result.attempts);
    state.addUsage(stepUsage);
    deps.recordUsage(result.attempts);

    if (!result.ok) {
      if (result.kind === "aborted" || signal.aborted) {
        keepInterruptedText(deps, state, streamed);
        return stopped(state, watchdog);
      }
      if (tokenReductions < maxTokenReductions && rejectsOutputLimit(result) && state.maxOutputTokens > 256) {
        tokenReductions += 1;
        const previous = state.maxOutputTokens;
        state.maxOutputTokens = Math.max(256, Math.floor(previous / 2));
        state.steps -= 1;
        deps.emit({
          type: "notice",
          level: "warn",
          message: `the provider rejected ${previous} output tokens; retrying with ${state.maxOutputTokens}`,
        });
        continue;
      }
      return modelFailure(result, state, deps);
    }

    state.append(deps.persist(withoutSdkToolResults(result.responseMessages)));
    deps.emit({ type: "step-finish", step, finishReason: result.finishReason, usage: stepUsage });
    if (state.continuingText) {
      // The previous reply was cut off by the output limit: this one continues it, so the answer is both.
      state.finalText += result.text;
      state.continuingText = false;
    } else if (result.text.trim() !== "") state.finalText = result.text;

    if (result.toolCalls.length > 0) {
      for (const call of result.toolCalls) await runner.run(call, step);
      if (signal.aborted) return stopped(state, watchdog);
      if (result.finishReason === "length") {
        // A call cut off by the output limit (typically a large write_file) came back invalid.
        if (state.truncationContinuations >= maxTruncationContinuations) return truncatedPause(state);
        state.truncationContinuations += 1;
        state.append(deps.persist([{ role: "user", content: truncationNudge }]));
      }
      if (state.progressSince(state.guardProgressMark)) {
        state.guardProgressMark = state.markNow();
        state.guardRoundsSinceProgress = 0;
        state.lastGuardProgressStep = step;
      }
      if (state.steps - state.budgetStartStep >= deps.maxSteps) {
        const verdict = await (await completionModules(watchdog)).budgetExhausted(deps, state, watchdog);
        if (verdict) return verdict;
      }
      continue;
    }

    if (result.finishReason === "length") {
      if (
        state.truncationContinuations < maxTruncationContinuations &&
        state.steps - state.budgetStartStep < deps.maxSteps
      ) {
        state.truncationContinuations += 1;
        state.continuingText = true;
        state.append(deps.persist([{ role: "user", content: truncationNudge }]));
        continue;
      }
      return truncatedPause(state);
    }

    // A message that arrived during the last step is answered before the task ends.
    const lateSteering = deps.takeSteering();
    if (lateSteering.length > 0) {
      state.append(deps.persist(lateSteering.map((text) => ({ role: "user", content: text }))));
      if (state.steps - state.budgetStartStep < deps.maxSteps) continue;
    }

    const work = unfinishedWork(state, result.text);
    if (work) {
      if (state.guardRounds >= maxGuardRounds) return guardPause(state, work.why);
      state.guardRounds += 1;
      state.guardRoundsSinceProgress += 1;
      let level = guardLevel(state.guardRoundsSinceProgress);
      const mutatingNames = deps.tools.filter((tool) => tool.mutating).map((tool) => tool.name);
      if (level === "forced" && mutatingNames.length === 0) level = "wake-up";
      const rotated = level === "rotate" ? (deps.rotatedModel?.(++state.rotations) ?? null) : null;
      if (level === "rotate" && !rotated) level = "wake-up";
      deps.emit({
        type: "notice",
        level: "warn",
        message: `the model stopped with work left (${work.why}); guard round ${state.guardRounds}/${maxGuardRounds}: ${level}`,
      });
      const listing = level === "grounding" ? await runner.listWorkspace(step) : null;
      state.append(deps.persist([{ role: "user", content: guardNote(level, work, listing) }]));
      if (level === "forced") stepOverrides = { toolChoice: "required", activeToolNames: mutatingNames };
      if (rotated) stepModel = rotated;
      if (state.steps - state.budgetStartStep >= deps.maxSteps) {
        const verdict = await (await completionModules(watchdog)).budgetExhausted(deps, state, watchdog);
        if (verdict) return verdict;
      }
      continue;
    }

    verification ??= lookupVerification(deps);
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
        continue;
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
}

/**
 * The evidence gate (with the change tracker's diff and the check-change rules under it) and the
 * budget verdict run after a model answer, never before the first request: they load then, once per
 * process. The watchdog is suspended while they load, so loading code is never counted as a stall.
 */
let completionLoad:
  | Promise<[typeof import("./completion/gate.js"), typeof import("./completion/auto-continue.js")]>
  | undefined;

async function completionModules(watchdog: StallWatchdog) {
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
function claimCutOffChanges(deps: LoopDependencies, state: TaskState): void {
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

function lookupVerification(deps: LoopDependencies): VerificationLookup {
  if (!deps.verification) return { ok: true, command: null };
  try {
    return { ok: true, command: deps.verification() };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function guardPause(state: TaskState, why: string): Ending {
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
function seconds(ms: number): string {
  return ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000));
}

function truncatedPause(state: TaskState): Ending {
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
function keepInterruptedText(deps: LoopDependencies, state: TaskState, streamed: string): void {
  if (streamed.trim() === "") return;
  // Not the task's answer (`text` of the report): a cut-off reply is not one.
  state.append(deps.persist([{ role: "assistant", content: `${streamed}\n\n[interrupted here]` }]));
}

function stopped(state: TaskState, watchdog: StallWatchdog): Ending {
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

function rejectsOutputLimit(result: StepFailure): boolean {
  return result.failures.some(
    (failure) => failure.status === 400 && outputLimitRejection.test(failure.cause),
  );
}

function modelFailure(result: StepFailure, state: TaskState, deps: LoopDependencies): Ending {
  deps.emit({ type: "notice", level: "error", message: result.message });
  return {
    endCause: "interrupted",
    outcome: "failed",
    text: state.finalText,
    reason: `${result.message}${workSoFar(state)}`,
  };
}
