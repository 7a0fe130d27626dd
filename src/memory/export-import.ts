import { z } from "zod";
import type { ImportConsolidation } from "./consolidation/import-merge.js";
import type { MemoryService } from "./service.js";
import { evidenceKindSchema, importanceSchema, memoryKindSchema, tierSchema } from "./store/schemas.js";
import { type Memory, VERSION_REASONS } from "./store/types.js";

/**
 * Export and import of memories. JSONL is the lossless format: a header line, then one line per
 * memory with every column and its full version history, then one line per open conflict. The
 * Markdown export is for people, and lossless too: each entry carries its JSONL record in an HTML
 * comment, so a Markdown file round-trips; hand-written bullets import as "imported" evidence.
 */
export const EXPORT_FORMAT_VERSION = 1;

const versionRecordSchema = z.strictObject({
  text: z.string(),
  kind: memoryKindSchema,
  importance: importanceSchema,
  evidence: evidenceKindSchema,
  reason: z.enum(VERSION_REASONS),
  sourceSessionId: z.string().nullable(),
  sourceMessageIds: z.array(z.number().int()),
  sourceQuote: z.string().nullable(),
  createdAt: z.string(),
});

const memoryRecordSchema = z.strictObject({
  type: z.literal("memory"),
  id: z.number().int(),
  userKey: z.string().min(1),
  project: z.string().nullable(),
  kind: memoryKindSchema,
  text: z.string().min(1),
  wordingEvidence: evidenceKindSchema,
  evidence: evidenceKindSchema,
  confirmations: z.number().int().min(0),
  contradictions: z.number().int().min(0),
  importance: importanceSchema,
  sourceSessionId: z.string().nullable(),
  sourceMessageIds: z.array(z.number().int()),
  sourceQuote: z.string().nullable(),
  validFrom: z.string().nullable(),
  validTo: z.string().nullable(),
  recordedAt: z.string(),
  supersededAt: z.string().nullable(),
  supersededBy: z.number().int().nullable(),
  tier: tierSchema,
  lastUsedAt: z.string().nullable(),
  lastConfirmedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  versions: z.array(versionRecordSchema),
});

const conflictRecordSchema = z.strictObject({
  type: z.literal("conflict"),
  userKey: z.string(),
  a: z.number().int(),
  b: z.number().int(),
  reason: z.string(),
  detectedAt: z.string(),
});

const headerSchema = z.strictObject({
  type: z.literal("mercury-memory-export"),
  version: z.literal(EXPORT_FORMAT_VERSION),
  exportedAt: z.string(),
});

export type MemoryRecord = z.infer<typeof memoryRecordSchema>;
type ConflictRecord = z.infer<typeof conflictRecordSchema>;

export class ImportError extends Error {
  override name = "ImportError";
}

function recordsOf(service: MemoryService, userKeys: readonly string[]) {
  const memories: MemoryRecord[] = [];
  const conflicts: ConflictRecord[] = [];
  for (const userKey of userKeys) {
    for (const memory of service.memories.list({ userKey, includeSuperseded: true })) {
      const versions = service.memories
        .versions(memory.id)
        .map(({ id: _id, memoryId: _memoryId, ...rest }) => rest);
      memories.push({ type: "memory", ...memory, versions });
    }
    for (const conflict of service.memories.conflicts(userKey)) {
      conflicts.push({
        type: "conflict",
        userKey,
        a: conflict.a.id,
        b: conflict.b.id,
        reason: conflict.reason,
        detectedAt: conflict.detectedAt,
      });
    }
  }
  return { memories, conflicts };
}

export function exportJsonl(service: MemoryService, userKeys: readonly string[], now: Date) {
  const { memories, conflicts } = recordsOf(service, userKeys);
  const lines = [
    JSON.stringify({
      type: "mercury-memory-export",
      version: EXPORT_FORMAT_VERSION,
      exportedAt: now.toISOString(),
    }),
    ...memories.map((record) => JSON.stringify(record)),
    ...conflicts.map((record) => JSON.stringify(record)),
  ];
  return { content: `${lines.join("\n")}\n`, count: memories.length };
}

/** JSON that can sit inside an HTML comment: "--" only occurs inside strings, where it is escaped. */
function commentSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/--/g, "-\\u002d");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export function exportMarkdown(service: MemoryService, userKeys: readonly string[], now: Date) {
  const { memories, conflicts } = recordsOf(service, userKeys);
  const out = [
    "# Mercury memories",
    "",
    `Exported ${now.toISOString()}: ${memories.length} memories. The comment under each entry is its full record`,
    "(history, provenance, counts); editing an entry's text imports as an edit.",
    "",
  ];
  for (const userKey of userKeys) {
    const own = memories.filter((record) => record.userKey === userKey);
    if (own.length === 0) continue;
    out.push(`## ${userKey}`, "");
    for (const record of own) {
      // A null reference: the replacing memory was forgotten (forget is the only delete).
      const status = !record.supersededAt
        ? record.tier
        : record.supersededBy === null
          ? "superseded by a forgotten memory"
          : `superseded by #${record.supersededBy}`;
      out.push(
        `- [${record.kind}] ${oneLine(record.text)} — ${record.evidence}, confirmed ${record.confirmations}×, ${record.importance}, ${status}`,
        `  <!-- mercury:${commentSafeJson(record)} -->`,
      );
    }
    out.push("");
  }
  for (const conflict of conflicts) out.push(`<!-- mercury:${commentSafeJson(conflict)} -->`);
  return { content: `${out.join("\n").trimEnd()}\n`, count: memories.length };
}

export interface ImportResult {
  imported: number;
  skipped: number;
  conflicts: number;
}

function parseJsonLine(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ImportError(
      `${where}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}

function classify(value: unknown, where: string): MemoryRecord | ConflictRecord | null {
  const type = z.object({ type: z.string() }).safeParse(value);
  if (!type.success) throw new ImportError(`${where}: a record needs a "type" field`);
  const schema =
    type.data.type === "memory"
      ? memoryRecordSchema
      : type.data.type === "conflict"
        ? conflictRecordSchema
        : type.data.type === "mercury-memory-export"
          ? headerSchema
          : undefined;
  if (!schema) throw new ImportError(`${where}: unknown record type "${type.data.type}"`);
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ImportError(`${where}: ${issues(parsed.error)}`);
  return parsed.data.type === "mercury-memory-export" ? null : parsed.data;
}

export function parseJsonl(content: string): (MemoryRecord | ConflictRecord)[] {
  const records: (MemoryRecord | ConflictRecord)[] = [];
  content.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    const record = classify(parseJsonLine(line, `line ${index + 1}`), `line ${index + 1}`);
    if (record) records.push(record);
  });
  return records;
}

const BULLET = /^\s*[-*]\s+(?:\[([a-z]+)\]\s+)?(.+?)\s*$/;
/** The " — evidence, confirmed n×, importance, tier" suffix the export writes after the text. */
const EXPORT_SUFFIX = /\s+—\s+[^—]*$/;
const COMMENT = /^\s*<!--\s*mercury:(.*)-->\s*$/;
const HEADING = /^##\s+(\S.*)$/;
const USER_KEY = /^(owner|[a-z]+:[\w.@-]+)$/;

/** Markdown: records from comments; a bullet without a record is a hand-written memory. */
export function parseMarkdown(
  content: string,
  defaultUserKey: string,
  now: Date,
): (MemoryRecord | ConflictRecord)[] {
  const records: (MemoryRecord | ConflictRecord)[] = [];
  const lines = content.split("\n");
  let userKey = defaultUserKey;
  let nextId = -1;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? "";
    const heading = HEADING.exec(line);
    if (heading?.[1]) {
      // Only a heading that names a person ("owner", "telegram:42") switches whose memories follow;
      // any other heading ("## Food") is just structure in a hand-written file.
      const name = heading[1].trim();
      if (USER_KEY.test(name)) userKey = name;
      continue;
    }
    const comment = COMMENT.exec(line);
    if (comment?.[1] !== undefined) {
      const record = classify(parseJsonLine(comment[1], `line ${index + 1}`), `line ${index + 1}`);
      if (record) records.push(record);
      continue;
    }
    const bullet = BULLET.exec(line);
    if (!bullet?.[2]) continue;
    const following = COMMENT.exec(lines[index + 1] ?? "");
    if (following?.[1] !== undefined) {
      const record = classify(parseJsonLine(following[1], `line ${index + 2}`), `line ${index + 2}`);
      index += 1;
      const shown = bullet[2].replace(EXPORT_SUFFIX, "").trim();
      if (record?.type === "memory" && oneLine(record.text) !== shown) {
        // The person edited the text in the file: that is a manual edit, kept in the history.
        const at = now.toISOString();
        record.versions.push(editVersion(record, shown, at));
        Object.assign(record, {
          text: shown,
          wordingEvidence: "manual",
          evidence: "manual",
          updatedAt: at,
        });
      }
      if (record) records.push(record);
      continue;
    }
    const kind = memoryKindSchema.safeParse(bullet[1] ?? "fact");
    if (!kind.success) throw new ImportError(`line ${index + 1}: unknown memory kind "${bullet[1]}"`);
    const at = now.toISOString();
    records.push({
      type: "memory",
      id: nextId--,
      userKey,
      project: null,
      kind: kind.data,
      text: bullet[2].trim(),
      wordingEvidence: "imported",
      evidence: "imported",
      confirmations: 0,
      contradictions: 0,
      importance: "normal",
      sourceSessionId: null,
      sourceMessageIds: [],
      sourceQuote: null,
      validFrom: null,
      validTo: null,
      recordedAt: at,
      supersededAt: null,
      supersededBy: null,
      tier: "active",
      lastUsedAt: null,
      lastConfirmedAt: null,
      createdAt: at,
      updatedAt: at,
      versions: [
        {
          text: bullet[2].trim(),
          kind: kind.data,
          importance: "normal",
          evidence: "imported",
          reason: "imported",
          sourceSessionId: null,
          sourceMessageIds: [],
          sourceQuote: null,
          createdAt: at,
        },
      ],
    });
  }
  return records;
}

function editVersion(record: MemoryRecord, text: string, at: string): MemoryRecord["versions"][number] {
  return {
    text,
    kind: record.kind,
    importance: record.importance,
    evidence: "manual",
    reason: "edited",
    sourceSessionId: null,
    sourceMessageIds: [],
    sourceQuote: null,
    createdAt: at,
  };
}

export interface ConsolidatedImportResult extends ImportResult {
  consolidation: ImportConsolidation;
}

/**
 * Imports, then consolidates the imported current memories against the memories the store held
 * before (same rules as a new fact): a rewording becomes a confirmation, an update supersedes, a
 * contradiction becomes a listed conflict; hand-written entries also meet the file's earlier ones.
 * Into an empty store, an export's records are written exactly as `importRecords` writes them.
 */
export async function importAndConsolidate(
  service: MemoryService,
  records: readonly (MemoryRecord | ConflictRecord)[],
  signal?: AbortSignal,
): Promise<ConsolidatedImportResult> {
  const before = service.database.prepare("SELECT COALESCE(MAX(id), 0) AS id FROM memories").get() as {
    id: number;
  };
  const { result, written } = writeRecords(service, records);
  const consolidation = await service.consolidateImported(
    written.map((memory) => memory.id),
    (memory) => memory.id <= before.id,
    signal,
  );
  return { ...result, consolidation };
}

/** Writes records losslessly, without meeting them against what is stored (see importAndConsolidate). */
export function importRecords(
  service: MemoryService,
  records: readonly (MemoryRecord | ConflictRecord)[],
): ImportResult {
  return writeRecords(service, records).result;
}

/**
 * Writes records in one transaction: all or nothing. A memory already present (same person,
 * creation time and text) is skipped, so importing the same file twice changes nothing. Ids are
 * new; supersession links and conflicts are re-pointed to them.
 */
function writeRecords(
  service: MemoryService,
  records: readonly (MemoryRecord | ConflictRecord)[],
): { result: ImportResult; written: { id: number; userKey: string; text: string }[] } {
  const result: ImportResult = { imported: 0, skipped: 0, conflicts: 0 };
  const idMap = new Map<number, number>();
  const database = service.database;
  const findSame = database.prepare(
    "SELECT id FROM memories WHERE user_key = ? AND created_at = ? AND text = ?",
  );
  const written: { id: number; userKey: string; text: string }[] = [];
  database.transaction(() => {
    for (const record of records) {
      if (record.type !== "memory") continue;
      const same = findSame.get(record.userKey, record.createdAt, record.text) as { id: number } | undefined;
      if (same) {
        idMap.set(record.id, same.id);
        result.skipped += 1;
        continue;
      }
      const { type: _type, id: _id, versions, supersededBy: _supersededBy, ...fields } = record;
      const memory: Omit<Memory, "id" | "supersededBy"> = fields;
      const id = service.memories.insertRaw(memory);
      for (const version of versions) {
        service.memories.addVersion(id, {
          text: version.text,
          kind: version.kind,
          importance: version.importance,
          evidence: version.evidence,
          reason: version.reason,
          sessionId: version.sourceSessionId,
          messageIds: version.sourceMessageIds,
          quote: version.sourceQuote,
          at: version.createdAt,
        });
      }
      idMap.set(record.id, id);
      written.push({ id, userKey: record.userKey, text: record.text });
      result.imported += 1;
    }
    for (const record of records) {
      if (record.type === "memory" && record.supersededBy !== null) {
        const id = idMap.get(record.id);
        const target = idMap.get(record.supersededBy);
        if (id !== undefined && target !== undefined) {
          database.prepare("UPDATE memories SET superseded_by = ? WHERE id = ?").run(target, id);
        }
      }
      if (record.type === "conflict") {
        const a = idMap.get(record.a);
        const b = idMap.get(record.b);
        if (a === undefined || b === undefined) {
          throw new ImportError(
            `conflict between #${record.a} and #${record.b} names a memory not in the file`,
          );
        }
        service.memories.addConflict(record.userKey, a, b, record.reason, record.detectedAt);
        result.conflicts += 1;
      }
    }
    service.indexMemories(written);
  })();
  return { result, written };
}
