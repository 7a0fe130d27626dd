import type { SqliteDatabase } from "../../storage/database.js";
import { RowReader } from "../../storage/row-shape.js";

const JOB_STATUSES = ["queued", "running", "done", "failed"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface ExtractionJob {
  id: number;
  userKey: string;
  sessionId: string;
  messageIds: number[];
  transcriptExcerpt: string | null;
  status: JobStatus;
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  createdAt: string;
}

export interface ExtractionFailure {
  id: number;
  jobId: number | null;
  userKey: string;
  stage: "extract" | "judge" | "provider";
  rawOutput: string;
  reason: string;
  createdAt: string;
}

const FAILURE_STAGES = ["extract", "judge", "provider"] as const;

function jobFromRow(row: unknown): ExtractionJob {
  const r = new RowReader("extraction_jobs", row);
  return {
    id: r.integer("id"),
    userKey: r.text("user_key"),
    sessionId: r.text("session_id"),
    messageIds: r.integerList("message_ids"),
    transcriptExcerpt: r.textOrNull("transcript_excerpt"),
    status: r.oneOf("status", JOB_STATUSES),
    attempts: r.integer("attempts"),
    nextAttemptAt: r.text("next_attempt_at"),
    lastError: r.textOrNull("last_error"),
    createdAt: r.text("created_at"),
  };
}

function failureFromRow(row: unknown): ExtractionFailure {
  const r = new RowReader("extraction_failures", row);
  return {
    id: r.integer("id"),
    jobId: r.integerOrNull("job_id"),
    userKey: r.text("user_key"),
    stage: r.oneOf("stage", FAILURE_STAGES),
    rawOutput: r.text("raw_output"),
    reason: r.text("reason"),
    createdAt: r.text("created_at"),
  };
}

/** The persistent extraction queue and the record of every failure. */
export class JobRepository {
  constructor(private readonly database: SqliteDatabase) {}

  enqueue(input: {
    userKey: string;
    sessionId: string;
    messageIds: readonly number[];
    excerpt: string;
    at: string;
  }) {
    const info = this.database
      .prepare(
        `INSERT INTO extraction_jobs (user_key, session_id, message_ids, transcript_excerpt, status, next_attempt_at,
           created_at, updated_at) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?)`,
      )
      .run(
        input.userKey,
        input.sessionId,
        JSON.stringify(input.messageIds),
        input.excerpt,
        input.at,
        input.at,
        input.at,
      );
    return this.get(Number(info.lastInsertRowid));
  }

  get(id: number): ExtractionJob {
    const row = this.database.prepare("SELECT * FROM extraction_jobs WHERE id = ?").get(id);
    if (row === undefined) throw new Error(`extraction job #${id} does not exist`);
    return jobFromRow(row);
  }

  due(at: string, limit: number): ExtractionJob[] {
    return this.database
      .prepare(
        "SELECT * FROM extraction_jobs WHERE status = 'queued' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?",
      )
      .all(at, limit)
      .map(jobFromRow);
  }

  /** A job left 'running' belongs to a process that died; it goes back to the queue. */
  requeueInterrupted(at: string): number {
    return this.database
      .prepare(
        "UPDATE extraction_jobs SET status = 'queued', updated_at = ?, last_error = 'interrupted: the process stopped during extraction' WHERE status = 'running'",
      )
      .run(at).changes;
  }

  /**
   * Takes a queued job for this run; false when another run already has it. Attempts are counted
   * by `countAttempt`, only when the model is really called.
   */
  claim(id: number, at: string): boolean {
    return (
      this.database
        .prepare(
          "UPDATE extraction_jobs SET status = 'running', updated_at = ? WHERE id = ? AND status = 'queued'",
        )
        .run(at, id).changes === 1
    );
  }

  countAttempt(id: number): void {
    this.database.prepare("UPDATE extraction_jobs SET attempts = attempts + 1 WHERE id = ?").run(id);
  }

  /**
   * Back to the queue, due at once, with the attempt not counted: the call was cut short by Mercury
   * stopping (Ctrl+C, the exit drain's limit), which says nothing about the provider or the output.
   */
  returnInterrupted(id: number, error: string, at: string): void {
    this.database
      .prepare(
        "UPDATE extraction_jobs SET status = 'queued', attempts = MAX(attempts - 1, 0), next_attempt_at = ?, last_error = ?, updated_at = ? WHERE id = ?",
      )
      .run(at, error, at, id);
  }

  /** Back to the queue (provider down, budget short): nothing is dropped. */
  defer(id: number, nextAttemptAt: string, error: string, at: string): void {
    this.database
      .prepare(
        "UPDATE extraction_jobs SET status = 'queued', next_attempt_at = ?, last_error = ?, updated_at = ? WHERE id = ?",
      )
      .run(nextAttemptAt, error, at, id);
  }

  /** Done: the excerpt is cleared so a finished job keeps no copy of the conversation. */
  markDone(id: number, at: string): void {
    this.database
      .prepare(
        "UPDATE extraction_jobs SET status = 'done', transcript_excerpt = NULL, last_error = NULL, updated_at = ? WHERE id = ?",
      )
      .run(at, id);
  }

  markFailed(id: number, error: string, at: string): void {
    this.database
      .prepare("UPDATE extraction_jobs SET status = 'failed', last_error = ?, updated_at = ? WHERE id = ?")
      .run(error, at, id);
  }

  recordFailure(input: Omit<ExtractionFailure, "id">): void {
    this.database
      .prepare(
        "INSERT INTO extraction_failures (job_id, user_key, stage, raw_output, reason, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(input.jobId, input.userKey, input.stage, input.rawOutput, input.reason, input.createdAt);
  }

  recentFailures(limit: number): ExtractionFailure[] {
    return this.database
      .prepare("SELECT * FROM extraction_failures ORDER BY id DESC LIMIT ?")
      .all(limit)
      .map(failureFromRow);
  }

  countFailures(): number {
    return (this.database.prepare("SELECT COUNT(*) AS n FROM extraction_failures").get() as { n: number }).n;
  }

  countByStatus(): Record<JobStatus, number> {
    const counts: Record<JobStatus, number> = { queued: 0, running: 0, done: 0, failed: 0 };
    const rows = this.database
      .prepare("SELECT status, COUNT(*) AS n FROM extraction_jobs GROUP BY status")
      .all() as { status: JobStatus; n: number }[];
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }

  queued(limit: number): ExtractionJob[] {
    return this.database
      .prepare(
        "SELECT * FROM extraction_jobs WHERE status IN ('queued','running') ORDER BY next_attempt_at, id LIMIT ?",
      )
      .all(limit)
      .map(jobFromRow);
  }
}
