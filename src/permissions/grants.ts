import { z } from "zod";
import type { Clock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";

export class GrantError extends Error {
  override name = "GrantError";
}

const grantRow = z.object({
  id: z.number(),
  user_key: z.string(),
  session_id: z.string().nullable(),
  scope: z.enum(["session", "always"]),
  kind: z.enum(["command", "path", "network", "mcp"]),
  subject: z.string(),
  match: z.enum(["exact", "prefix"]),
  created_at: z.string(),
  created_by: z.string(),
  revoked_at: z.string().nullable(),
});

export type Grant = z.infer<typeof grantRow>;

const shellMeta = /[;&|<>`$(){}*?[\]\n\\'"!#~]/;

/**
 * Standing permissions a person gave in answer to an approval: the exact normalized command or
 * path, or a narrow command prefix they confirmed (at least two words, no shell syntax), never
 * "program *".
 */
export class GrantStore {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {}

  add(args: {
    userKey: string;
    sessionId: string | null;
    scope: "session" | "always";
    kind: "command" | "path" | "network" | "mcp";
    subject: string;
    prefix?: string | undefined;
    createdBy: string;
  }): Grant {
    let subject = args.subject;
    let match: "exact" | "prefix" = "exact";
    if (args.prefix !== undefined) {
      subject = validatePrefix(args.prefix, args.subject, args.kind);
      match = "prefix";
    }
    const now = this.clock.now().toISOString();
    const result = this.database
      .prepare(
        `INSERT INTO permission_grants (user_key, session_id, scope, kind, subject, match, created_at, created_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(args.userKey, args.sessionId, args.scope, args.kind, subject, match, now, args.createdBy);
    const row: unknown = this.database
      .prepare("SELECT * FROM permission_grants WHERE id = ?")
      .get(result.lastInsertRowid);
    return grantRow.parse(row);
  }

  /**
   * The grant covering a request, if any. Session grants only count for that session and never
   * for derived contexts (sub-agents, scheduled tasks); prefix grants only for one simple command.
   */
  find(args: {
    userKey: string;
    sessionId: string | null;
    kind: "command" | "path" | "network" | "mcp";
    subject: string;
    singleCommand: boolean;
  }): Grant | null {
    const rows: unknown[] = this.database
      .prepare(
        "SELECT * FROM permission_grants WHERE user_key = ? AND kind = ? AND revoked_at IS NULL ORDER BY id",
      )
      .all(args.userKey, args.kind);
    for (const row of rows.map((r) => grantRow.parse(r))) {
      if (row.scope === "session" && (args.sessionId === null || row.session_id !== args.sessionId)) continue;
      if (row.match === "exact" && row.subject === args.subject) return row;
      if (
        row.match === "prefix" &&
        args.singleCommand &&
        !shellMeta.test(args.subject) &&
        (args.subject === row.subject || args.subject.startsWith(`${row.subject} `))
      ) {
        return row;
      }
    }
    return null;
  }

  list(userKey?: string): Grant[] {
    const rows: unknown[] =
      userKey === undefined
        ? this.database.prepare("SELECT * FROM permission_grants WHERE revoked_at IS NULL ORDER BY id").all()
        : this.database
            .prepare("SELECT * FROM permission_grants WHERE revoked_at IS NULL AND user_key = ? ORDER BY id")
            .all(userKey);
    return rows.map((row) => grantRow.parse(row));
  }

  revoke(id: number): boolean {
    const result = this.database
      .prepare("UPDATE permission_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
      .run(this.clock.now().toISOString(), id);
    return result.changes > 0;
  }
}

export function validatePrefix(prefix: string, subject: string, kind: string): string {
  const trimmed = prefix.trim().replace(/\s+/g, " ");
  if (kind !== "command")
    throw new GrantError("Only commands can be granted by prefix; paths are granted exactly.");
  if (shellMeta.test(trimmed)) {
    throw new GrantError(
      `The prefix "${prefix}" contains shell syntax or wildcards; give plain words such as "npm run build".`,
    );
  }
  if (trimmed.split(" ").length < 2) {
    throw new GrantError(
      `The prefix "${prefix}" is a bare program name; that would allow everything it can do. Give at least two words.`,
    );
  }
  if (subject !== trimmed && !subject.startsWith(`${trimmed} `)) {
    throw new GrantError(`The prefix "${prefix}" does not start the command "${subject}".`);
  }
  return trimmed;
}
