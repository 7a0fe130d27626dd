import { getHeapStatistics } from "node:v8";
import type { EndCause, Outcome } from "../events.js";
import type { LoopDependencies } from "../loop-types.js";
import type { TaskState } from "../state.js";
import { compactToolResults, type HeapGovernorSettings } from "./compaction.js";
import { sumUsage } from "./messages.js";
import {
  historyTokens,
  keptWholeTexts,
  summarizeAtShare,
  summarizeOlder,
  summaryCut,
  summaryMessage,
} from "./summarize.js";

export const defaultHeapGovernor = (): HeapGovernorSettings => ({
  limitBytes: Math.floor(getHeapStatistics().heap_size_limit * 0.8),
  heapUsed: () => process.memoryUsage().heapUsed,
  sustainedChecks: 3,
});

interface GovernorStop {
  endCause: EndCause;
  outcome: Outcome;
  text: string;
  reason: string;
}

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/**
 * Between steps: the memory governor (compact old tool output under heap pressure; pause only when
 * the pressure stays after compacting) and the context governor (summarize older turns near the
 * history budget). Both change only what the task holds and sends; the database keeps everything.
 */
export async function governBetweenSteps(
  deps: LoopDependencies,
  state: TaskState,
  signal: AbortSignal,
): Promise<GovernorStop | null> {
  const heap = deps.heap ?? defaultHeapGovernor();
  const before = heap.heapUsed();
  if (before > heap.limitBytes) {
    const compacted = compactToolResults(state.history);
    const after = heap.heapUsed();
    deps.emit({
      type: "notice",
      level: "warn",
      message: `memory pressure (${mb(before)} of ${mb(heap.limitBytes)} heap): compacted ${compacted} old tool result(s) and continuing`,
    });
    state.heapPressureStreak = after > heap.limitBytes ? state.heapPressureStreak + 1 : 0;
    if (state.heapPressureStreak >= heap.sustainedChecks) {
      return {
        endCause: "aborted",
        outcome: "paused",
        text: state.finalText,
        reason: `memory pressure stayed above ${mb(heap.limitBytes)} (heap ${mb(after)}) after compacting old tool output ${state.heapPressureStreak} times. Free memory or restart Mercury, then say "continue".`,
      };
    }
  } else {
    state.heapPressureStreak = 0;
  }

  if (historyTokens(state.history) > deps.historyBudgetTokens * summarizeAtShare)
    await summarize(deps, state, signal);
  return null;
}

async function summarize(deps: LoopDependencies, state: TaskState, signal: AbortSignal): Promise<void> {
  const cut = summaryCut(state.history, deps.historyBudgetTokens);
  if (cut === null || cut < 2) return;
  const older = state.history.slice(0, cut);
  // Too little to gain (e.g. right after a summary, with one huge newest message): the window bound does it.
  if (historyTokens(older) < deps.historyBudgetTokens * 0.2) return;
  const result = await summarizeOlder(deps.model, older, Math.min(state.maxOutputTokens, 2000), signal);
  const usage = sumUsage(result.attempts);
  state.addUsage(usage);
  deps.recordUsage(result.attempts);
  if (!result.ok || result.text.trim() === "") {
    const why = result.ok ? "the summary came back empty" : result.message;
    deps.emit({
      type: "notice",
      level: "warn",
      message: `could not summarize older turns (${why}); sending only the newest ones that fit`,
    });
    return;
  }
  state.history = [
    summaryMessage(result.text.trim(), older.length, keptWholeTexts(older)),
    ...state.history.slice(cut),
  ];
  state.summaries += 1;
  deps.emit({
    type: "notice",
    level: "info",
    message: `context near the limit: summarized ${older.length} older message(s); the full transcript stays in the database`,
  });
}
