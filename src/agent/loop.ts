import type { ModelStepper, StepRequest } from "../model/types.js";
import type { VerificationLookup } from "./completion/gate.js";
import { governBetweenSteps } from "./completion/governors.js";
import { prepareMessages, sumUsage, withoutSdkToolResults } from "./completion/messages.js";
import { guardLevel, guardNote, maxGuardRounds, unfinishedWork } from "./completion/narration.js";
import { ToolRunner } from "./completion/tool-runner.js";
import { defaultStallSettings, StallWatchdog } from "./completion/watchdog.js";
import { boundHistory } from "./history.js";
import {
  guardPause,
  keepInterruptedText,
  modelFailure,
  rejectsOutputLimit,
  seconds,
  stopped,
  truncatedPause,
} from "./loop-endings.js";
import type { Ending, LoopDependencies, LoopResult } from "./loop-types.js";
import type { TaskState } from "./state.js";
import { claimCutOffChanges, completionModules, gateEnding, lookupVerification } from "./turn-end.js";

export type { LoopDependencies, LoopResult, ToolErrorRecord } from "./loop-types.js";

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
    const ending = await gateEnding(deps, state, watchdog, signal, runner, verification, step);
    if (ending === null) continue;
    return ending;
  }
}
