import type { JobRepository } from "./jobs.js";
import type { JudgeQueue } from "./judge-queue.js";
import type { MemoryRepository } from "./memory-repo.js";

export interface MemoryStats {
  memories: {
    current: number;
    superseded: number;
    byTier: Record<string, number>;
    byKind: Record<string, number>;
  };
  conflicts: number;
  /** Comparisons waiting for the model judge (it failed; they are retried before the next extraction). */
  judgeQueue: number;
  extraction: {
    jobs: Record<"queued" | "running" | "done" | "failed", number>;
    queue: { id: number; attempts: number; nextAttemptAt: string; lastError: string | null }[];
    failures: number;
    recentFailures: { id: number; jobId: number | null; stage: string; reason: string; at: string }[];
  };
}

/** What `mercury memory stats` shows: counts, the extraction queue and the recorded failures. */
export function collectStats(
  memories: MemoryRepository,
  jobs: JobRepository,
  userKey: string | null,
  judgeQueue: JudgeQueue,
): MemoryStats {
  const byTier = memories.countBy(userKey, "tier");
  const users = userKey === null ? memories.allUsers() : [userKey];
  return {
    memories: {
      current: Object.values(byTier).reduce((sum, n) => sum + n, 0),
      superseded: memories.countSuperseded(userKey),
      byTier,
      byKind: memories.countBy(userKey, "kind"),
    },
    conflicts: users.reduce((sum, user) => sum + memories.conflicts(user).length, 0),
    judgeQueue: judgeQueue.count(userKey),
    extraction: {
      jobs: jobs.countByStatus(),
      queue: jobs.queued(20).map((job) => ({
        id: job.id,
        attempts: job.attempts,
        nextAttemptAt: job.nextAttemptAt,
        lastError: job.lastError,
      })),
      failures: jobs.countFailures(),
      recentFailures: jobs.recentFailures(10).map((failure) => ({
        id: failure.id,
        jobId: failure.jobId,
        stage: failure.stage,
        reason: failure.reason,
        at: failure.createdAt,
      })),
    },
  };
}
