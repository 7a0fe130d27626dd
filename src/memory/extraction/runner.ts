import type { Clock } from "../../agent/clock.js";
import type { ConsolidationOutcome } from "../consolidation/consolidate.js";
import type { ExtractionJob, JobRepository } from "../store/jobs.js";
import type { Candidate, Receipt } from "../store/types.js";
import { attribute } from "./attribution.js";
import type { MemoryModel } from "./model.js";
import {
  EXTRACTION_SYSTEM,
  type ExtractionOutput,
  extractionPrompt,
  parseExtraction,
  repairPrompt,
} from "./schema.js";
import { ownNamesOf } from "./speaker-label.js";

/**
 * Retry policy of the persistent queue: exponential backoff from one minute, doubling per attempt,
 * capped at six hours. After MAX_ATTEMPTS retryable failures the job fails visibly (a recorded
 * failure and a receipt); it is never dropped in silence.
 */
export const BACKOFF_BASE_MS = 60_000;
export const BACKOFF_CAP_MS = 6 * 3_600_000;
export const MAX_ATTEMPTS = 8;
/** When the budget says no, jobs wait this long before the next look. */
export const BUDGET_RETRY_MS = 15 * 60_000;

export function backoffMs(attempts: number): number {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

export interface RunnerDeps {
  jobs: JobRepository;
  clock: Clock;
  model: MemoryModel | undefined;
  canSpend: () => boolean;
  /**
   * Put jobs left 'running' back in the queue first. Only true for the first run of a process:
   * then a running job can only be the remains of a crash, never another run's work in progress.
   */
  recoverInterrupted: boolean;
  emit(receipt: Receipt): void;
  store(candidate: Candidate, signal?: AbortSignal): Promise<ConsolidationOutcome>;
  log?(level: "info" | "warn" | "error", message: string): void;
  /** When the job's source turns were said (see store/provenance.ts); null when not archived. */
  sourceTime?(job: ExtractionJob): string | null;
}

export interface RunSummary {
  examined: number;
  done: number;
  deferred: number;
  failed: number;
  stored: number;
  /** Why the run stopped early, if it did (budget, no model, aborted). */
  stoppedBecause: string | null;
}

type Attempt =
  | { kind: "ok"; output: ExtractionOutput }
  | { kind: "retry"; cause: string }
  | { kind: "fail"; stage: "extract" | "provider"; raw: string; reason: string };

async function attemptExtraction(
  model: MemoryModel,
  excerpt: string,
  signal?: AbortSignal,
): Promise<Attempt> {
  const options = signal ? { signal } : {};
  const first = await model.complete({
    system: EXTRACTION_SYSTEM,
    prompt: extractionPrompt(excerpt),
    ...options,
  });
  if (!first.ok) {
    return first.retryable
      ? { kind: "retry", cause: first.cause }
      : { kind: "fail", stage: "provider", raw: "", reason: `provider refused: ${first.cause}` };
  }
  const parsed = parseExtraction(first.text, excerpt);
  if (parsed.ok) return { kind: "ok", output: parsed.output };
  // Exactly one repair: the model sees its output and what was wrong with it.
  const second = await model.complete({
    system: EXTRACTION_SYSTEM,
    prompt: repairPrompt(excerpt, first.text, parsed.problem),
    ...options,
  });
  if (!second.ok) {
    return second.retryable
      ? { kind: "retry", cause: `repair call failed: ${second.cause}` }
      : {
          kind: "fail",
          stage: "provider",
          raw: first.text,
          reason: `output invalid (${parsed.problem}) and the repair call was refused: ${second.cause}`,
        };
  }
  const repaired = parseExtraction(second.text, excerpt);
  if (repaired.ok) return { kind: "ok", output: repaired.output };
  return {
    kind: "fail",
    stage: "extract",
    raw: `--- first output ---\n${first.text}\n--- repaired output ---\n${second.text}`,
    reason: `invalid output after one repair: first ${parsed.problem}; repaired ${repaired.problem}`,
  };
}

function candidatesOf(job: ExtractionJob, output: ExtractionOutput, sourceTime: string): Candidate[] {
  return output.memories.map((item) => ({
    userKey: job.userKey,
    kind: item.kind,
    text: item.text,
    // The transcript, not the model, says who said it and how much it matters.
    ...attribute(item, job.transcriptExcerpt ?? "", ownNamesOf(job.userKey)),
    provenance: { sessionId: job.sessionId, messageIds: job.messageIds, quote: item.sourceQuote },
    // True since the turn that said it, unless the excerpt itself says when it became true.
    validFrom: item.validFrom ?? sourceTime,
  }));
}

/** Runs every due job once, oldest first. */
export async function runPendingExtractions(deps: RunnerDeps, signal?: AbortSignal): Promise<RunSummary> {
  const summary: RunSummary = {
    examined: 0,
    done: 0,
    deferred: 0,
    failed: 0,
    stored: 0,
    stoppedBecause: null,
  };
  const startedAt = deps.clock.now().toISOString();
  if (deps.recoverInterrupted) deps.jobs.requeueInterrupted(startedAt);
  const due = deps.jobs.due(startedAt, 1000);
  for (const job of due) {
    if (signal?.aborted) {
      summary.stoppedBecause = "aborted";
      break;
    }
    const now = deps.clock.now();
    // Claimed before any await: a concurrent run skips it instead of extracting it twice.
    if (!deps.jobs.claim(job.id, now.toISOString())) continue;
    if (!deps.model) {
      summary.stoppedBecause = "no model is configured for memory extraction";
      deps.jobs.defer(
        job.id,
        new Date(now.getTime() + BUDGET_RETRY_MS).toISOString(),
        summary.stoppedBecause,
        now.toISOString(),
      );
      summary.deferred++;
      continue;
    }
    if (!deps.canSpend()) {
      summary.stoppedBecause = "the model budget is exhausted; extraction waits for budget";
      deps.jobs.defer(
        job.id,
        new Date(now.getTime() + BUDGET_RETRY_MS).toISOString(),
        summary.stoppedBecause,
        now.toISOString(),
      );
      summary.deferred++;
      continue;
    }
    summary.examined++;
    deps.jobs.countAttempt(job.id);
    const attempts = job.attempts + 1;
    let attempt: Attempt;
    try {
      attempt = await attemptExtraction(deps.model, job.transcriptExcerpt ?? "", signal);
    } catch (error) {
      // A thrown error (abort, a bug in the model adapter) leaves the job queued, never lost.
      const cause = error instanceof Error ? error.message : String(error);
      summary.deferred++;
      if (signal?.aborted) {
        deps.jobs.returnInterrupted(job.id, cause, now.toISOString());
        summary.stoppedBecause = "aborted";
        break;
      }
      deps.jobs.defer(
        job.id,
        new Date(now.getTime() + backoffMs(attempts)).toISOString(),
        cause,
        now.toISOString(),
      );
      deps.log?.("warn", `memory extraction job #${job.id} threw: ${cause}`);
      continue;
    }
    const at = deps.clock.now().toISOString();
    if (signal?.aborted && attempt.kind !== "ok") {
      // Stopped by Mercury, not refused by the provider: the job waits for the next run, uncounted.
      deps.jobs.returnInterrupted(job.id, "interrupted: Mercury stopped before the extraction finished", at);
      summary.deferred++;
      summary.stoppedBecause = "aborted";
      break;
    }
    if (attempt.kind === "retry") {
      if (attempts >= MAX_ATTEMPTS) {
        const reason = `gave up after ${attempts} attempts; last cause: ${attempt.cause}`;
        fail(deps, job, "provider", "", reason, at);
        summary.failed++;
      } else {
        const next = new Date(Date.parse(at) + backoffMs(attempts)).toISOString();
        deps.jobs.defer(job.id, next, attempt.cause, at);
        deps.log?.("warn", `memory extraction job #${job.id} deferred until ${next}: ${attempt.cause}`);
        summary.deferred++;
      }
      continue;
    }
    if (attempt.kind === "fail") {
      fail(deps, job, attempt.stage, attempt.raw, attempt.reason, at);
      summary.failed++;
      continue;
    }
    // The job is enqueued when its turn ends, so its creation time stands in for unarchived turns.
    const candidates = candidatesOf(job, attempt.output, deps.sourceTime?.(job) ?? job.createdAt);
    let stored = 0;
    try {
      // Each candidate is consolidated atomically; the job is not retried after a partial store
      // (a retry would count the stored ones as confirmations), it fails visibly instead.
      for (const candidate of candidates) {
        await deps.store(candidate, signal);
        stored++;
      }
    } catch (error) {
      const cause = error instanceof Error ? error.message : String(error);
      const reason = `storing failed after ${stored} of ${candidates.length} memories: ${cause}`;
      fail(deps, job, "extract", JSON.stringify(attempt.output), reason, deps.clock.now().toISOString());
      summary.stored += stored;
      summary.failed++;
      continue;
    }
    summary.stored += stored;
    deps.jobs.markDone(job.id, deps.clock.now().toISOString());
    summary.done++;
  }
  return summary;
}

function fail(
  deps: RunnerDeps,
  job: ExtractionJob,
  stage: "extract" | "provider",
  raw: string,
  reason: string,
  at: string,
): void {
  deps.jobs.recordFailure({
    jobId: job.id,
    userKey: job.userKey,
    stage,
    rawOutput: raw,
    reason,
    createdAt: at,
  });
  deps.jobs.markFailed(job.id, reason, at);
  deps.log?.("error", `memory extraction job #${job.id} failed: ${reason}`);
  deps.emit({ kind: "failed", userKey: job.userKey, text: `Couldn't save a memory: ${reason}` });
}
