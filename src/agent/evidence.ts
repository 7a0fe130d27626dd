import { z } from "zod";
import type { SqliteDatabase } from "../storage/database.js";
import { type Clock, systemClock } from "./clock.js";
import type { StoredBaseline } from "./completion/changes.js";

const baselineSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("git"), top: z.string(), gitDir: z.string(), tree: z.string() }),
  z.object({
    kind: z.literal("snapshot"),
    root: z.string(),
    store: z.string(),
    truncated: z.boolean(),
    problems: z.array(z.string()),
    hashes: z.record(z.string(), z.string()),
  }),
  z.object({ kind: z.literal("failed"), note: z.string() }),
]);

const evidenceSchema = z.object({
  cwd: z.string(),
  baseline: baselineSchema.nullable(),
  /**
   * The judge, fixed when the first change happened: the verification command then (null = none
   * found), or the error that made it impossible to tell. Later edits to the project files do not
   * change which command judges the task.
   */
  verify: z.object({ command: z.string(), source: z.string() }).nullable().optional(),
  verifyError: z.string().optional(),
  verifications: z.array(
    z.object({
      command: z.string(),
      exitCode: z.number().int().nullable(),
      sequence: z.number().int(),
      /** The task's files right after the run (older records have none: ordering alone then). */
      fingerprint: z.string().optional(),
      /** An exit 0 whose output reported failures or no tests (records before this have none). */
      outputSays: z.enum(["failures", "no tests"]).optional(),
    }),
  ),
  lastChangeSequence: z.number().int(),
  callSequence: z.number().int(),
  /** The task's files as of its last report: undo restores only files still in this state. */
  after: z
    .object({
      files: z.array(z.string()),
      root: z.string(),
      tree: z.string().optional(),
      hashes: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  undoneAt: z.string().optional(),
  /** The check changes the user accepted (path + what changed), so a later "continue" can complete. */
  acceptedCheckChanges: z.array(z.string()).optional(),
  /** Content hashes of the files the judge runs, taken with it (completion/judge-files.ts). */
  judgeFiles: z.record(z.string(), z.string()).optional(),
  /** Git-ignored check files (by name) at the baseline, with content hashes (completion/hidden-checks.ts). */
  hiddenChecks: z.record(z.string(), z.string()).optional(),
  /** Build output the check names, by metadata, at the baseline (completion/stale-output.ts). */
  builtOutputs: z.record(z.string(), z.string()).optional(),
  /**
   * Checks and changes that produced no evidence (TaskState.uncheckedClaims): kept across runs, so a
   * "continue" after a refused or failed write (or a failed sub-agent) does not answer "done" bare.
   */
  uncheckedClaims: z
    .array(z.object({ sequence: z.number().int(), why: z.string(), change: z.literal(true).optional() }))
    .optional(),
});

export type TaskEvidence = z.infer<typeof evidenceSchema>;

export function emptyEvidence(cwd: string): TaskEvidence {
  return { cwd, baseline: null, verifications: [], lastChangeSequence: -1, callSequence: 0 };
}

/**
 * The evidence of a task, kept in the work ledger's database across runs of the task: a pause,
 * a crash and "continue" resume it, so the evidence gate always judges every change since the
 * baseline. Written after each fact (a single upsert), so a kill -9 loses nothing already done.
 */
export class TaskEvidenceStore {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock = systemClock,
  ) {}

  load(taskId: string): TaskEvidence | null {
    const row = this.database.prepare("SELECT evidence FROM task_evidence WHERE task_id = ?").get(taskId) as
      | { evidence: string }
      | undefined;
    if (!row) return null;
    const parsed = evidenceSchema.safeParse(JSON.parse(row.evidence));
    if (!parsed.success)
      throw new Error(`the stored evidence of task ${taskId} is unreadable: ${parsed.error.message}`);
    return parsed.data;
  }

  /**
   * Task ids with recorded changes, newest first (for `mercury undo` without an id, and prefixes).
   * Newest by the order of writes (each save moves the row to the end of the rowid sequence), never
   * by the wall clock: after a clock set back, `mercury undo` undid an older task's changes.
   */
  taskIds(): string[] {
    const rows = this.database.prepare("SELECT task_id FROM task_evidence ORDER BY rowid DESC").all() as {
      task_id: string;
    }[];
    return rows.map((row) => row.task_id);
  }

  save(taskId: string, evidence: TaskEvidence): void {
    this.database
      .prepare(
        `INSERT INTO task_evidence (task_id, evidence, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(task_id) DO UPDATE SET evidence = excluded.evidence, updated_at = excluded.updated_at,
           rowid = (SELECT MAX(rowid) FROM task_evidence) + 1`,
      )
      .run(taskId, JSON.stringify(evidence), this.clock.now().toISOString());
  }
}

export type { StoredBaseline };
