import { dirname, join } from "node:path";
import type { SqliteDatabase } from "../storage/database.js";
import { type ForgetRecord, forgetInCopies } from "./forget-copies.js";
import { scrubFiles } from "./forget-files.js";
import { contentWords, distinctiveWords, scrubWords, valueWords, wordScrubber } from "./forget-words.js";
import type { MemoryRepository } from "./store/memory-repo.js";
import {
  FORGOTTEN,
  isOwned,
  recordRedactions,
  redactMessages,
  reindexEpisodes,
  scrubEverywhere,
} from "./store/redaction.js";
import type { MemoryIndex } from "./store/types.js";

export interface ForgetDeps {
  database: SqliteDatabase;
  memories: MemoryRepository;
  index: MemoryIndex;
  log?(level: "info" | "warn" | "error", message: string): void;
  /** Other copies of the database on disk (backups) that must forget too. */
  databaseCopies?: () => string[];
}

export interface ForgetResult {
  messagesRedacted: number;
  episodesRedacted: number;
  /** Backups under MERCURY_HOME the forget was applied to. */
  copiesUpdated: number;
  /** Copies that could not be changed: they still hold the text; the user is told which. */
  copiesFailed: { path: string; reason: string }[];
  /**
   * The user's own files (MERCURY_HOME/workspace) that hold the forgotten text. Mercury does not
   * rewrite them (they are the user's work, not its records); the user is told which they are.
   */
  userFilesHolding: string[];
  /**
   * Files under MERCURY_HOME that Mercury cannot rewrite (a database copy it does not manage, such as
   * one the user made; a compressed archive) and that still hold the text: the user is told which.
   */
  copiesHolding: string[];
}

/**
 * Erases a memory: the memory, its versions, conflicts, index postings and vector are deleted
 * (a content-free tombstone stays); the transcript turns it came from are redacted to a placeholder
 * (the conversation keeps its shape), and its words are scrubbed from every other table (episodes,
 * the task ledger, deliveries, extraction excerpts and failures) and re-indexed. With
 * `secure_delete` on, freed pages are zeroed; the WAL is then checkpointed and truncated, so no file
 * under MERCURY_HOME keeps the text. Only the owner of the memory can do it.
 */
export function forgetMemory(deps: ForgetDeps, id: number, userKey: string, at: string): ForgetResult {
  const { database } = deps;
  const memory = deps.memories.getForUser(id, userKey);
  // A "superseded" version carries the provenance of what replaced this memory (the newer fact's
  // turn and quote): forgetting "I live in Paris" must not redact "I moved to Berlin" nor scrub its
  // words. Its text is this memory's own and goes with it.
  const versions = deps.memories
    .versions(id)
    .map((version) =>
      version.reason === "superseded" ? { ...version, sourceMessageIds: [], sourceQuote: null } : version,
    );
  const result = database.transaction(() => {
    const sourceIds = [
      ...new Set([...memory.sourceMessageIds, ...versions.flatMap((v) => v.sourceMessageIds)]),
    ];
    const ownMessageIds = (
      database
        .prepare(
          `SELECT m.id FROM messages m JOIN sessions s ON s.id = m.session_id
           WHERE s.user_key = ? AND m.id IN (SELECT value FROM json_each(?))`,
        )
        .all(userKey, JSON.stringify(sourceIds)) as { id: number }[]
    ).map((row) => row.id);
    // Before the redaction: a parent's delegate_task result names the sub-agent sessions it started.
    const sessionIds = sourceSessions(database, ownMessageIds);
    const turnTexts = redactMessages(database, ownMessageIds);
    const sourceEpisodes = database
      .prepare(
        "SELECT id, text FROM episodes WHERE user_key = ? AND message_id IN (SELECT value FROM json_each(?))",
      )
      .all(userKey, JSON.stringify(ownMessageIds)) as { id: number; text: string }[];
    database
      .prepare("UPDATE episodes SET text = ? WHERE id IN (SELECT value FROM json_each(?))")
      .run(FORGOTTEN, JSON.stringify(sourceEpisodes.map((row) => row.id)));
    const needles = [
      memory.text,
      ...(memory.sourceQuote ? [memory.sourceQuote] : []),
      ...versions.flatMap((version) => [version.text, ...(version.sourceQuote ? [version.sourceQuote] : [])]),
      ...turnTexts,
      ...sourceEpisodes.map((row) => row.text),
    ];
    const changed = scrubEverywhere(database, needles);
    const factTexts = [
      memory.text,
      ...(memory.sourceQuote ? [memory.sourceQuote] : []),
      ...versions.flatMap((version) => [version.text, ...(version.sourceQuote ? [version.sourceQuote] : [])]),
    ];
    const words = distinctiveWords(database, factTexts, id);
    const contextWords = [...new Set(factTexts.flatMap(contentWords))];
    const values = valueWords(factTexts, words);
    const scrubber = wordScrubber(words, FORGOTTEN, contextWords, values);
    const byWords = scrubber
      ? scrubWords(database, scrubber, sessionIds, isOwned)
      : new Map<string, number[]>();
    const episodeIds = [
      ...new Set([
        ...sourceEpisodes.map((row) => row.id),
        ...(changed.get("episodes") ?? []),
        ...(byWords.get("episodes") ?? []),
      ]),
    ];
    const messageIds = [
      ...new Set([...ownMessageIds, ...(changed.get("messages") ?? []), ...(byWords.get("messages") ?? [])]),
    ];
    deps.index.remove("memory", id);
    reindexEpisodes(database, deps.index, episodeIds);
    deps.memories.delete(id, userKey, at);
    recordRedactions(database, "messages", messageIds, id, at);
    recordRedactions(database, "episodes", episodeIds, id, at);
    const record: ForgetRecord = {
      memoryId: id,
      userKey,
      at,
      messageIds,
      episodeIds,
      needles,
      words,
      contextWords,
      valueWords: values,
      sessionIds,
    };
    return record;
  })();
  checkpoint(deps);
  const copyPaths = deps.databaseCopies?.() ?? [];
  const copies = forgetInCopies(copyPaths, result);
  const userFiles: string[] = [];
  const copiesHolding: string[] = [];
  if (!database.memory) {
    // Logs, task baselines, exports and any other text file under MERCURY_HOME — but not the user's
    // own files in the workspace: those are reported, never silently rewritten.
    const home = dirname(database.name);
    const files = scrubFiles(home, {
      needles: result.needles,
      scrubber: wordScrubber(result.words, FORGOTTEN, result.contextWords, result.valueWords),
      sessionIds: result.sessionIds,
      skip: [database.name, ...copyPaths],
      userFolders: [join(home, "workspace")],
    });
    copies.failed.push(...files.failed);
    userFiles.push(...files.userFiles);
    copiesHolding.push(...files.copiesHolding);
  }
  for (const failure of copies.failed) {
    deps.log?.(
      "warn",
      `forget of memory #${id}: could not update the copy ${failure.path}: ${failure.reason}`,
    );
  }
  return {
    messagesRedacted: result.messageIds.length,
    episodesRedacted: result.episodeIds.length,
    copiesUpdated: copies.updated.length,
    copiesFailed: copies.failed,
    userFilesHolding: userFiles,
    copiesHolding,
  };
}

/**
 * Moves the WAL into the database and truncates it: deleted text in WAL frames is gone from disk.
 * A reader holding an old snapshot (another process) can keep frames alive; that is reported.
 */
function checkpoint(deps: ForgetDeps): void {
  if (deps.database.memory) return;
  const [row] = deps.database.pragma("wal_checkpoint(TRUNCATE)") as { busy: number; log: number }[];
  if (row && row.busy !== 0) {
    deps.log?.(
      "warn",
      "after forget: the WAL could not be truncated while another process reads; it will be on its next checkpoint",
    );
  }
}

/**
 * The conversations the forgotten fact came from, and the sub-agents they started (a child's session
 * id is named in its parent's delegate_task result), transitively: a child was handed the fact too.
 */
function sourceSessions(database: SqliteDatabase, messageIds: readonly number[]): string[] {
  const sessions = new Set(
    (
      database
        .prepare("SELECT DISTINCT session_id FROM messages WHERE id IN (SELECT value FROM json_each(?))")
        .all(JSON.stringify(messageIds)) as { session_id: string }[]
    ).map((row) => row.session_id),
  );
  const children = (
    database.prepare("SELECT id FROM sessions WHERE channel = 'subagent'").all() as { id: string }[]
  ).map((row) => row.id);
  const contents = database.prepare("SELECT content FROM messages WHERE session_id = ?");
  let frontier = [...sessions];
  while (frontier.length > 0 && children.length > 0) {
    const text = frontier
      .flatMap((session) => (contents.all(session) as { content: string }[]).map((row) => row.content))
      .join("\n");
    frontier = children.filter((child) => !sessions.has(child) && text.includes(child));
    for (const child of frontier) sessions.add(child);
  }
  for (const session of scheduledRunSessions(database, [...sessions])) sessions.add(session);
  return [...sessions];
}

/**
 * A job scheduled in the fact's conversation was handed the fact: its runs are tasks with sessions of
 * their own (a run that answers only the value, "ZEBRAQUARTZ"), linked through the job's `created_by`
 * ("chat (owner, task …)") and the run's `task_id`.
 */
function scheduledRunSessions(database: SqliteDatabase, sessions: readonly string[]): string[] {
  return (
    database
      .prepare(
        `SELECT DISTINCT t.session_id AS session_id FROM scheduled_runs r JOIN tasks t ON t.id = r.task_id
         WHERE r.job_id IN (
           SELECT j.id FROM scheduled_jobs j JOIN tasks source ON instr(j.created_by, source.id) > 0
           WHERE source.session_id IN (SELECT value FROM json_each(?)))`,
      )
      .all(JSON.stringify(sessions)) as { session_id: string }[]
  ).map((row) => row.session_id);
}
