import { createHash } from "node:crypto";
import { z } from "zod";
import type { Clock } from "../agent/clock.js";
import type { McpServerConfig } from "../config/mcp-schema.js";
import { mcpChangeKey } from "../permissions/approvals.js";
import { GrantStore } from "../permissions/grants.js";
import type { SqliteDatabase } from "../storage/database.js";
import type { McpToolInfo } from "./connection.js";

/**
 * What each MCP tool was when Mercury last listed it, kept across restarts (SQLite `settings`), so a
 * standing approval stays tied to the tool the person approved. A server that later changes a tool's
 * description, arguments or read-only claim (a "rug pull"), or another server configured under the
 * same name, finds the grants for it revoked and the next call asks again, saying what changed.
 * Until a person approves that question, config trust (`trusted` + read-only, `tools.allow`) does
 * not cover the tool either: both were given to the tool as it was.
 */

const recordSchema = z.object({
  identity: z.string(),
  tools: z.record(
    z.string(),
    z.object({ description: z.string(), schema: z.string(), readOnly: z.boolean() }),
  ),
});
type DefinitionRecord = z.infer<typeof recordSchema>;

export interface DefinitionChange {
  tool: string;
  /** For the person: what is different from the approved tool, e.g. "its description and its arguments". */
  what: string;
}

/** What a server is, beside its name: the program it runs or the address it answers at. */
export function serverIdentity(config: McpServerConfig): string {
  return config.url
    ? `url ${config.url}`
    : `command ${JSON.stringify([config.command ?? "", ...(config.args ?? [])])}`;
}

const definitionsKey = (server: string) => `mcp.definitions:${server}`;
const hashOf = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex");

export class McpDefinitionStore {
  private readonly grants: GrantStore;

  constructor(
    private readonly database: SqliteDatabase,
    clock: Clock,
  ) {
    this.grants = new GrantStore(database, clock);
  }

  /**
   * Compares a server's listed tools with the record, revokes the grants that covered a changed
   * tool (the whole-server grant too: it was given for the tools as they were), leaves a note for the
   * next question, and records the tools as they are now. Returns the changes, for the log.
   */
  reconcile(server: string, config: McpServerConfig, tools: readonly McpToolInfo[]): DefinitionChange[] {
    const identity = serverIdentity(config);
    const previous = this.record(server);
    const changes: DefinitionChange[] = [];
    const current: DefinitionRecord = { identity, tools: { ...(previous?.tools ?? {}) } };
    const live = this.liveGrantSubjects(server);
    for (const tool of tools) {
      const now = {
        description: tool.description,
        schema: hashOf(tool.inputSchema),
        readOnly: tool.readOnly,
      };
      current.tools[tool.name] = now;
      let what: string | null = null;
      if (previous === null) {
        // Grants from before definitions were recorded: nobody can say what they approved.
        if (live.has(`mcp:${server}/${tool.name}`) || live.has(`mcp:${server}/*`))
          what = "it was approved before Mercury recorded what its tools were";
      } else if (previous.identity !== identity) {
        what = `the server named ${server} is now a different server (${identity}; it was ${previous.identity})`;
      } else {
        const before = previous.tools[tool.name];
        if (before) what = describeDifference(before, now);
      }
      if (what === null) continue;
      changes.push({ tool: tool.name, what });
      this.revoke(server, tool.name);
      this.setNote(server, tool.name, `changed since it was approved: ${what}`);
    }
    if (previous !== null && previous.identity !== identity) {
      // Grants for tools the new server does not list now must not wait for one of that name.
      for (const subject of live) if (subject.startsWith(`mcp:${server}/`)) this.revokeSubject(subject);
    }
    this.database
      .prepare("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)")
      .run(definitionsKey(server), JSON.stringify(current));
    return changes;
  }

  /** The note of a change nobody has approved yet, or null. */
  pendingChange(server: string, tool: string): string | null {
    const row = this.database
      .prepare("SELECT value FROM settings WHERE key = ?")
      .get(mcpChangeKey(`mcp:${server}/${tool}`));
    return row === undefined ? null : z.object({ value: z.string() }).parse(row).value;
  }

  /** A person approved the changed tool: its definition now is the approved one. */
  acknowledge(server: string, tool: string): void {
    this.database.prepare("DELETE FROM settings WHERE key = ?").run(mcpChangeKey(`mcp:${server}/${tool}`));
  }

  private record(server: string): DefinitionRecord | null {
    const row = this.database.prepare("SELECT value FROM settings WHERE key = ?").get(definitionsKey(server));
    if (row === undefined) return null;
    const parsed = recordSchema.safeParse(JSON.parse(z.object({ value: z.string() }).parse(row).value));
    // An unreadable record is treated as none (every granted tool is asked again), never as a match.
    return parsed.success ? parsed.data : null;
  }

  private setNote(server: string, tool: string, note: string): void {
    this.database
      .prepare("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)")
      .run(mcpChangeKey(`mcp:${server}/${tool}`), note);
  }

  private liveGrantSubjects(server: string): Set<string> {
    return new Set(
      this.grants
        .list()
        .filter((grant) => grant.kind === "mcp" && grant.subject.startsWith(`mcp:${server}/`))
        .map((grant) => grant.subject),
    );
  }

  private revoke(server: string, tool: string): void {
    this.revokeSubject(`mcp:${server}/${tool}`);
    this.revokeSubject(`mcp:${server}/*`);
  }

  private revokeSubject(subject: string): void {
    for (const grant of this.grants.list())
      if (grant.kind === "mcp" && grant.subject === subject) this.grants.revoke(grant.id);
  }
}

function describeDifference(
  before: DefinitionRecord["tools"][string],
  now: DefinitionRecord["tools"][string],
): string | null {
  const parts: string[] = [];
  if (before.description !== now.description)
    parts.push(`its description (was ${quoteClipped(before.description)})`);
  if (before.schema !== now.schema) parts.push("its arguments");
  if (before.readOnly !== now.readOnly)
    parts.push(now.readOnly ? "it now claims to be read-only" : "it no longer claims to be read-only");
  return parts.length === 0 ? null : parts.join(", ");
}

function quoteClipped(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 119)}…` : text);
}
