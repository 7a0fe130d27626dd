import { z } from "zod";
import type { Clock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";

/** What the reviewer is shown as the reason to trust a learned skill. */
export const evidenceSchema = z.object({
  taskId: z.string(),
  outcome: z.string(),
  verification: z.array(z.object({ command: z.string(), exitCode: z.number().nullable() })),
  reason: z.string(),
  proposedBy: z.string(),
});
export type DraftEvidence = z.infer<typeof evidenceSchema>;

const draftRow = z.object({
  id: z.number(),
  name: z.string(),
  kind: z.enum(["new", "edit"]),
  content: z.string(),
  previous: z.string().nullable(),
  diff: z.string(),
  evidence: z.string(),
  status: z.enum(["pending", "approved", "rejected"]),
  created_at: z.string(),
  reviewed_at: z.string().nullable(),
  reviewed_by: z.string().nullable(),
});

export interface SkillDraft {
  id: number;
  name: string;
  kind: "new" | "edit";
  content: string;
  previous: string | null;
  diff: string;
  evidence: DraftEvidence;
  status: "pending" | "approved" | "rejected";
  createdAt: string;
  reviewedAt: string | null;
  reviewedBy: string | null;
}

/** Learned skills waiting for the owner. A draft is never on disk where discovery looks. */
export class DraftStore {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {}

  add(draft: {
    name: string;
    kind: "new" | "edit";
    content: string;
    previous: string | null;
    diff: string;
    evidence: DraftEvidence;
  }): SkillDraft {
    const result = this.database
      .prepare(
        `INSERT INTO skill_drafts (name, kind, content, previous, diff, evidence, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)`,
      )
      .run(
        draft.name,
        draft.kind,
        draft.content,
        draft.previous,
        draft.diff,
        JSON.stringify(draft.evidence),
        this.clock.now().toISOString(),
      );
    return this.get(Number(result.lastInsertRowid)) as SkillDraft;
  }

  get(id: number): SkillDraft | null {
    const row: unknown = this.database.prepare("SELECT * FROM skill_drafts WHERE id = ?").get(id);
    return row === undefined ? null : toDraft(row);
  }

  list(status?: SkillDraft["status"]): SkillDraft[] {
    const rows: unknown[] =
      status === undefined
        ? this.database.prepare("SELECT * FROM skill_drafts ORDER BY id").all()
        : this.database.prepare("SELECT * FROM skill_drafts WHERE status = ? ORDER BY id").all(status);
    return rows.map(toDraft);
  }

  /** Marks a pending draft reviewed; false when it was not pending (answered twice, unknown). */
  settle(id: number, status: "approved" | "rejected", by: string): boolean {
    return (
      this.database
        .prepare(
          "UPDATE skill_drafts SET status = ?, reviewed_at = ?, reviewed_by = ? WHERE id = ? AND status = 'pending'",
        )
        .run(status, this.clock.now().toISOString(), by, id).changes > 0
    );
  }
}

function toDraft(raw: unknown): SkillDraft {
  const row = draftRow.parse(raw);
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    content: row.content,
    previous: row.previous,
    diff: row.diff,
    evidence: evidenceSchema.parse(JSON.parse(row.evidence)),
    status: row.status,
    createdAt: row.created_at,
    reviewedAt: row.reviewed_at,
    reviewedBy: row.reviewed_by,
  };
}
