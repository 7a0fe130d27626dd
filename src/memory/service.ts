import { type Clock, systemClock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";
import { confidence } from "./confidence.js";
import { type ConsolidationOutcome, consolidate } from "./consolidation/consolidate.js";
import { consolidateImported, type ImportConsolidation } from "./consolidation/import-merge.js";
import { type DrainSummary, drainJudgeQueue } from "./consolidation/queue-drain.js";
import type { MemoryModel } from "./extraction/model.js";
import { type RunSummary, runPendingExtractions } from "./extraction/runner.js";
import { EmbeddingError } from "./search/types.js";
import { type Episode, type EpisodeInput, EpisodeRepository } from "./store/episodes.js";
import { type ExtractionJob, JobRepository } from "./store/jobs.js";
import { JudgeQueue } from "./store/judge-queue.js";
import { type ListFilter, MemoryRepository } from "./store/memory-repo.js";
import { formatProfile, PROFILE_TOKENS } from "./store/profile.js";
import { type SourceTurn, sourceTurns, sourceTurnTime } from "./store/provenance.js";
import { rankRecalled } from "./store/ranking.js";
import { estimateTokens, formatRecall } from "./store/recall.js";
import {
  FORGOTTEN,
  recordRedactions,
  redactMessages,
  reindexEpisodes,
  scrubEverywhere,
} from "./store/redaction.js";
import { collectStats, type MemoryStats } from "./store/stats.js";
import type {
  Candidate,
  EvidenceKind,
  Importance,
  Memory,
  MemoryIndex,
  MemoryKind,
  MemoryVersion,
  Receipt,
  ReceiptListener,
} from "./store/types.js";
import { userSaidRecently } from "./store/user-words.js";
import { type DecayResult, runDecay } from "./tiers.js";

export interface MemoryServiceOptions {
  database: SqliteDatabase;
  index: MemoryIndex;
  clock?: Clock;
  /** Extraction model. Without one, jobs stay queued (visible in stats) until one is configured. */
  model?: MemoryModel;
  /** Lets the model judge same/contradicts/unrelated; the deterministic rules decide otherwise. */
  judgeWithModel?: boolean;
  /** Asked before every extraction; false keeps jobs queued. */
  canSpend?: () => boolean;
  onReceipt?: ReceiptListener;
  log?(level: "info" | "warn" | "error", message: string): void;
  /**
   * A word-only index over the same database, used when the configured embedder fails (server down):
   * search and consolidation go on with word search and a visible notice, never a crash.
   */
  wordIndex?: MemoryIndex;
  /** Embeds what was just written (memory add stores its vector); failures become notices. */
  embedPending?: () => Promise<number>;
  /** Shown to the person (CLI stderr, chat notice): degraded service they should know about. */
  onNotice?(message: string): void;
}

export interface RememberInput {
  userKey: string;
  text: string;
  kind: MemoryKind;
  importance: Importance;
  evidence: EvidenceKind;
  project?: string | null;
  sessionId?: string | null;
  messageIds?: number[];
  quote?: string | null;
  validFrom?: string | null;
}

export type { MemoryStats };

export interface MemoryView extends Memory {
  /** Derived from evidence by confidence(); never stored. */
  confidence: number;
}

export interface SearchResult {
  memory: MemoryView;
  relevance: number;
}

/** A memory as shown to people and tools: with its confidence computed now. */
function viewOf(memory: Memory, now: Date): MemoryView {
  return {
    ...memory,
    confidence: confidence(
      {
        evidence: memory.evidence,
        confirmations: memory.confirmations,
        contradictions: memory.contradictions,
        lastConfirmedAt: memory.lastConfirmedAt ?? memory.createdAt,
      },
      now,
    ),
  };
}

function requireText(text: string, what: string): string {
  const trimmed = text.trim();
  if (trimmed === "") throw new RangeError(`${what} is empty: give the text to remember`);
  if (trimmed.length > 2000)
    throw new RangeError(`${what} is ${trimmed.length} characters; keep a memory under 2000`);
  return trimmed;
}

/** The facade over the memory store: the agent, the tools and the CLI go through here. */
export class MemoryService {
  readonly database: SqliteDatabase;
  readonly memories: MemoryRepository;
  readonly episodes: EpisodeRepository;
  readonly jobs: JobRepository;
  readonly judgeQueue: JudgeQueue;
  private readonly index: MemoryIndex;
  private readonly clock: Clock;
  private readonly options: MemoryServiceOptions;
  private recoveredInterruptedJobs = false;
  /** Consolidation reads (search) then writes; one at a time, or two copies of a fact both get created. */
  private consolidating: Promise<unknown> = Promise.resolve();

  constructor(options: MemoryServiceOptions) {
    this.options = options;
    this.database = options.database;
    this.index = {
      upsert: (doc) => options.index.upsert(doc),
      remove: (namespace, id) => options.index.remove(namespace, id),
      search: (query, searchOptions) => this.searchWithFallback(query, searchOptions),
    };
    this.clock = options.clock ?? systemClock;
    this.memories = new MemoryRepository(options.database);
    this.episodes = new EpisodeRepository(options.database);
    this.jobs = new JobRepository(options.database);
    this.judgeQueue = new JudgeQueue(options.database);
  }

  /** Notices raised by this service (also sent to onNotice), for callers that print them. */
  readonly notices: string[] = [];

  private notice(message: string): void {
    if (this.notices.includes(message)) return;
    this.notices.push(message);
    this.options.log?.("warn", message);
    this.options.onNotice?.(message);
  }

  private async searchWithFallback(
    query: string,
    options: Parameters<MemoryIndex["search"]>[1],
  ): ReturnType<MemoryIndex["search"]> {
    try {
      return await this.options.index.search(query, options);
    } catch (error) {
      if (!(error instanceof EmbeddingError) || !this.options.wordIndex) throw error;
      this.notice(`embeddings unavailable (${error.message}); using word search only`);
      return this.options.wordIndex.search(query, options);
    }
  }

  private async embedWritten(): Promise<void> {
    if (!this.options.embedPending) return;
    try {
      await this.options.embedPending();
    } catch (error) {
      if (!(error instanceof EmbeddingError)) throw error;
      this.notice(
        `embeddings unavailable (${error.message}); stored without a vector, it will be embedded later`,
      );
    }
  }

  private emit(receipt: Receipt): void {
    // Logs carry ids, never memory text: a forgotten memory must not survive in a log file.
    this.options.log?.(
      "info",
      `[memory ${receipt.userKey}] ${receipt.kind}${receipt.memoryId !== undefined ? ` #${receipt.memoryId}` : ""}`,
    );
    this.options.onReceipt?.(receipt);
  }

  private consolidationDeps() {
    // The judge spends model budget too: with none left, the deterministic rules decide.
    const canSpend = this.options.canSpend ?? (() => true);
    const judge = this.options.judgeWithModel && canSpend() ? this.options.model : undefined;
    return {
      database: this.database,
      memories: this.memories,
      jobs: this.jobs,
      queue: this.judgeQueue,
      index: this.index,
      clock: this.clock,
      emit: (receipt: Receipt) => this.emit(receipt),
      ...(judge ? { judge } : {}),
    };
  }

  /** Stores a claim through consolidation (confirm / supersede / conflict / create). */
  async remember(input: RememberInput, signal?: AbortSignal): Promise<ConsolidationOutcome> {
    const candidate: Candidate = {
      userKey: input.userKey,
      project: input.project ?? null,
      kind: input.kind,
      text: requireText(input.text, "memory text"),
      evidence: input.evidence,
      importance: input.importance,
      provenance: {
        sessionId: input.sessionId ?? null,
        messageIds: input.messageIds ?? [],
        quote: input.quote ?? null,
      },
      validFrom: input.validFrom ?? null,
    };
    const outcome = await this.consolidateOne(candidate, signal);
    await this.embedWritten();
    return outcome;
  }

  private consolidateOne(candidate: Candidate, signal?: AbortSignal): Promise<ConsolidationOutcome> {
    const run = this.consolidating.then(() => consolidate(this.consolidationDeps(), candidate, signal));
    // The chain only orders work; each caller still receives its own result or error through `run`.
    this.consolidating = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Archives one conversation turn and makes it searchable. */
  recordEpisode(input: EpisodeInput): Episode {
    return this.database.transaction(() => {
      const episode = this.episodes.insert(input);
      if (episode.text.trim() !== "") {
        this.index.upsert({
          namespace: "episode",
          id: episode.id,
          scope: episode.userKey,
          text: episode.text,
        });
      }
      return episode;
    })();
  }

  /** Deletes a session's archived turns (and their index entries): the user's choice, never decay. */
  forgetEpisodes(input: { userKey: string; sessionId: string }): number {
    return this.database.transaction(() => {
      const ids = this.episodes.deleteSession(input.sessionId, input.userKey);
      for (const id of ids) this.index.remove("episode", id);
      return ids.length;
    })();
  }

  enqueueExtraction(input: {
    userKey: string;
    sessionId: string;
    messageIds: number[];
    transcriptExcerpt: string;
  }): ExtractionJob {
    if (input.transcriptExcerpt.trim() === "") {
      throw new RangeError("transcriptExcerpt is empty: there is nothing to extract memories from");
    }
    return this.jobs.enqueue({
      userKey: input.userKey,
      sessionId: input.sessionId,
      messageIds: input.messageIds,
      excerpt: input.transcriptExcerpt,
      at: this.clock.now().toISOString(),
    });
  }

  /** Meets imported memories with those stored before the import, in the consolidation order. */
  async consolidateImported(
    importedIds: readonly number[],
    wasStored: (memory: Memory) => boolean,
    signal?: AbortSignal,
  ): Promise<ImportConsolidation> {
    const run = this.consolidating.then(() =>
      consolidateImported(this.consolidationDeps(), importedIds, wasStored, signal),
    );
    this.consolidating = run.then(
      () => undefined,
      () => undefined,
    );
    const summary = await run;
    await this.embedWritten();
    return summary;
  }

  /** Judges the pairs that waited for the model judge; a no-op without one. */
  runJudgeQueue(signal?: AbortSignal): Promise<DrainSummary> {
    const run = this.consolidating.then(() => drainJudgeQueue(this.consolidationDeps(), signal));
    this.consolidating = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async runPendingExtractions(signal?: AbortSignal): Promise<RunSummary> {
    if (this.judgeQueue.count(null) > 0) await this.runJudgeQueue(signal);
    const recoverInterrupted = !this.recoveredInterruptedJobs;
    this.recoveredInterruptedJobs = true;
    return await runPendingExtractions(
      {
        jobs: this.jobs,
        clock: this.clock,
        model: this.options.model,
        canSpend: this.options.canSpend ?? (() => true),
        recoverInterrupted,
        emit: (receipt) => this.emit(receipt),
        store: (candidate, runSignal) => this.consolidateOne(candidate, runSignal),
        sourceTime: (job) => sourceTurnTime(this.database, job.userKey, job.messageIds),
        ...(this.options.log ? { log: this.options.log } : {}),
      },
      signal,
    );
  }

  /** Current memories relevant to the query, in ranked order (scoped to one person). */
  async search(input: {
    userKey: string;
    query: string;
    limit?: number;
    includeSuperseded?: boolean;
    project?: string | null;
  }): Promise<SearchResult[]> {
    const hits = await this.index.search(input.query, {
      namespace: "memory",
      scopes: [input.userKey],
      pool: 100,
    });
    const found = this.memories.getMany(hits.map((hit) => hit.id));
    const now = this.clock.now();
    const candidates = hits.flatMap((hit) => {
      const memory = found.get(hit.id);
      if (!memory || memory.userKey !== input.userKey) return [];
      if (!input.includeSuperseded && memory.supersededAt !== null) return [];
      if (input.project !== undefined && memory.project !== null && memory.project !== input.project)
        return [];
      return [{ memory, relevance: hit.relevance }];
    });
    return rankRecalled(candidates, now)
      .slice(0, input.limit ?? 10)
      .map((entry) => ({ memory: viewOf(entry.memory, now), relevance: entry.relevance }));
  }

  /**
   * The system-prompt section of relevant memories, within `tokenBudget` (ceil(chars/4) tokens).
   * Memories that go into the prompt are marked used, which keeps them in the active tier.
   */
  async recall(input: {
    userKey: string;
    query: string;
    tokenBudget: number;
    project?: string | null;
  }): Promise<{ section: string; memoryIds: number[] }> {
    if (!Number.isInteger(input.tokenBudget) || input.tokenBudget < 0) {
      throw new RangeError(`tokenBudget must be a non-negative integer, got ${input.tokenBudget}`);
    }
    if (input.tokenBudget === 0) return { section: "", memoryIds: [] };
    // The profile comes first and whatever the query says: core facts never depend on word overlap.
    const profile = this.profile({
      userKey: input.userKey,
      tokenBudget: Math.min(PROFILE_TOKENS, input.tokenBudget),
      ...(input.project !== undefined ? { project: input.project } : {}),
    });
    const now = this.clock.now();
    const rest = input.tokenBudget - estimateTokens(profile.section);
    let recalled: { section: string; memoryIds: number[] } = { section: "", memoryIds: [] };
    if (input.query.trim() !== "" && rest > 0) {
      const shown = new Set(profile.memoryIds);
      const results = await this.search({
        userKey: input.userKey,
        query: input.query,
        limit: 50,
        ...(input.project !== undefined ? { project: input.project } : {}),
      });
      recalled = formatRecall(
        results.map((result) => result.memory).filter((memory) => !shown.has(memory.id)),
        rest,
        now,
      );
    }
    const memoryIds = [...profile.memoryIds, ...recalled.memoryIds];
    this.memories.markUsed(memoryIds, now.toISOString());
    return {
      section: [profile.section, recalled.section].filter((part) => part !== "").join("\n"),
      memoryIds,
    };
  }

  /** The always-present block of core facts and open conflicts (see store/profile.ts). */
  profile(input: { userKey: string; tokenBudget?: number; project?: string | null }): {
    section: string;
    memoryIds: number[];
  } {
    const current = this.memories
      .list({ userKey: input.userKey })
      .filter(
        (memory) =>
          memory.project === null || input.project === undefined || memory.project === input.project,
      );
    return formatProfile(
      current,
      this.memories.conflicts(input.userKey),
      input.tokenBudget ?? PROFILE_TOKENS,
    );
  }

  async searchEpisodes(input: {
    userKey: string;
    query: string;
    limit?: number;
  }): Promise<{ episode: Episode; relevance: number }[]> {
    const hits = await this.index.search(input.query, {
      namespace: "episode",
      scopes: [input.userKey],
      pool: 100,
    });
    const found = this.episodes.getMany(hits.map((hit) => hit.id));
    return hits
      .flatMap((hit) => {
        const episode = found.get(hit.id);
        return episode && episode.userKey === input.userKey ? [{ episode, relevance: hit.relevance }] : [];
      })
      .slice(0, input.limit ?? 10);
  }

  list(filter: ListFilter): MemoryView[] {
    const now = this.clock.now();
    return this.memories.list(filter).map((memory) => viewOf(memory, now));
  }

  show(id: number, userKey: string): MemoryView {
    return viewOf(this.memories.getForUser(id, userKey), this.clock.now());
  }

  history(id: number, userKey: string): MemoryVersion[] {
    this.memories.getForUser(id, userKey);
    return this.memories.versions(id);
  }

  /** A user's edit: a new version with manual evidence; the wording is the user's. */
  edit(id: number, userKey: string, text: string): MemoryView {
    const existing = this.memories.getForUser(id, userKey);
    const newText = requireText(text, "the new text");
    const at = this.clock.now().toISOString();
    const updated = this.database.transaction(() => {
      this.memories.addVersion(id, {
        text: newText,
        kind: existing.kind,
        importance: existing.importance,
        evidence: "manual",
        reason: "edited",
        sessionId: null,
        messageIds: [],
        quote: null,
        at,
      });
      const memory = this.memories.update(
        id,
        { text: newText, wordingEvidence: "manual", evidence: "manual", lastConfirmedAt: at, tier: "active" },
        at,
      );
      this.index.upsert({ namespace: "memory", id, scope: memory.userKey, text: memory.text });
      return memory;
    })();
    this.emit({ kind: "updated", userKey, text: `Updated: ${updated.text} (was: ${existing.text})` });
    return viewOf(updated, this.clock.now());
  }

  /**
   * Erases a memory: the memory, its versions, conflicts, index postings and vector are deleted
   * (a content-free tombstone stays); the transcript turns it came from are redacted to a placeholder
   * (the conversation keeps its shape), and its words are scrubbed from every other table (episodes,
   * the task ledger, deliveries, extraction excerpts and failures) and re-indexed. With
   * `secure_delete` on, freed pages are zeroed; the WAL is then checkpointed and truncated, so no file
   * under MERCURY_HOME keeps the text. Only the owner of the memory can do it.
   */
  forget(id: number, userKey: string): { messagesRedacted: number; episodesRedacted: number } {
    const memory = this.memories.getForUser(id, userKey);
    const versions = this.memories.versions(id);
    const at = this.clock.now().toISOString();
    const result = this.database.transaction(() => {
      const sourceIds = [
        ...new Set([...memory.sourceMessageIds, ...versions.flatMap((v) => v.sourceMessageIds)]),
      ];
      const ownMessageIds = (
        this.database
          .prepare(
            `SELECT m.id FROM messages m JOIN sessions s ON s.id = m.session_id
             WHERE s.user_key = ? AND m.id IN (SELECT value FROM json_each(?))`,
          )
          .all(userKey, JSON.stringify(sourceIds)) as { id: number }[]
      ).map((row) => row.id);
      const turnTexts = redactMessages(this.database, ownMessageIds);
      const sourceEpisodes = this.database
        .prepare(
          "SELECT id, text FROM episodes WHERE user_key = ? AND message_id IN (SELECT value FROM json_each(?))",
        )
        .all(userKey, JSON.stringify(ownMessageIds)) as { id: number; text: string }[];
      this.database
        .prepare("UPDATE episodes SET text = ? WHERE id IN (SELECT value FROM json_each(?))")
        .run(FORGOTTEN, JSON.stringify(sourceEpisodes.map((row) => row.id)));
      const needles = [
        memory.text,
        ...(memory.sourceQuote ? [memory.sourceQuote] : []),
        ...versions.flatMap((version) => [
          version.text,
          ...(version.sourceQuote ? [version.sourceQuote] : []),
        ]),
        ...turnTexts,
        ...sourceEpisodes.map((row) => row.text),
      ];
      const changed = scrubEverywhere(this.database, needles);
      const episodeIds = [
        ...new Set([...sourceEpisodes.map((row) => row.id), ...(changed.get("episodes") ?? [])]),
      ];
      const messageIds = [...new Set([...ownMessageIds, ...(changed.get("messages") ?? [])])];
      this.index.remove("memory", id);
      reindexEpisodes(this.database, this.index, episodeIds);
      this.memories.delete(id, userKey, at);
      recordRedactions(this.database, "messages", messageIds, id, at);
      recordRedactions(this.database, "episodes", episodeIds, id, at);
      return { messagesRedacted: messageIds.length, episodesRedacted: episodeIds.length };
    })();
    this.checkpoint();
    this.emit({ kind: "forgotten", userKey, memoryId: id, text: `Forgotten: memory #${id}` });
    return result;
  }

  /**
   * Moves the WAL into the database and truncates it: deleted text in WAL frames is gone from disk.
   * A reader holding an old snapshot (another process) can keep frames alive; that is reported.
   */
  private checkpoint(): void {
    if (this.database.memory) return;
    const [row] = this.database.pragma("wal_checkpoint(TRUNCATE)") as { busy: number; log: number }[];
    if (row && row.busy !== 0) {
      this.options.log?.(
        "warn",
        "after forget: the WAL could not be truncated while another process reads; it will be on its next checkpoint",
      );
    }
  }

  /** Memories shown to the model (a search result) count as used: it keeps them active. */
  markUsed(ids: readonly number[]): void {
    this.memories.markUsed(ids, this.clock.now().toISOString());
  }

  /** Adds memories written outside consolidation (imports) to the search index. */
  indexMemories(items: readonly { id: number; userKey: string; text: string }[]): void {
    for (const item of items) {
      this.index.upsert({ namespace: "memory", id: item.id, scope: item.userKey, text: item.text });
    }
  }

  /** Where a memory came from: the source turns (speaker, date) and every version. */
  why(id: number, userKey: string): { memory: MemoryView; sources: SourceTurn[]; versions: MemoryVersion[] } {
    const memory = this.memories.getForUser(id, userKey);
    const versions = this.memories.versions(id);
    return {
      memory: viewOf(memory, this.clock.now()),
      sources: sourceTurns(this.database, userKey, memory, versions),
      versions,
    };
  }

  /**
   * Settles the open conflicts of a memory: keep one (the other is superseded by it, its validity
   * closed now) or keep both (the conflict is marked resolved, both stay current).
   */
  resolveConflict(
    id: number,
    userKey: string,
    keep: number | "both",
  ): { kept: number[]; superseded: number[]; resolved: number } {
    this.memories.getForUser(id, userKey);
    const open = this.memories
      .conflicts(userKey)
      .filter((conflict) => conflict.a.id === id || conflict.b.id === id);
    if (open.length === 0)
      throw new RangeError(`memory #${id} has no open conflict; see \`mercury memory conflicts\``);
    const involved = new Set(open.flatMap((conflict) => [conflict.a.id, conflict.b.id]));
    if (keep !== "both" && !involved.has(keep)) {
      throw new RangeError(
        `--keep must be "both" or one of ${[...involved].map((n) => `#${n}`).join(", ")}; got #${keep}`,
      );
    }
    const at = this.clock.now().toISOString();
    const superseded: number[] = [];
    this.database.transaction(() => {
      for (const conflict of open) {
        this.database
          .prepare("UPDATE memory_conflicts SET resolved_at = ? WHERE id = ?")
          .run(at, conflict.id);
        if (keep === "both") continue;
        const winner = conflict.a.id === keep ? conflict.a : conflict.b.id === keep ? conflict.b : undefined;
        const loser = winner === conflict.a ? conflict.b : conflict.a;
        if (!winner || loser.supersededAt !== null) continue;
        this.memories.addVersion(loser.id, {
          text: loser.text,
          kind: loser.kind,
          importance: loser.importance,
          evidence: loser.evidence,
          reason: "superseded",
          sessionId: null,
          messageIds: [],
          quote: null,
          at,
        });
        this.memories.update(loser.id, { supersededAt: at, supersededBy: winner.id, validTo: at }, at);
        superseded.push(loser.id);
      }
    })();
    this.emit({ kind: "updated", userKey, memoryId: id, text: `Resolved conflict of memory #${id}` });
    return {
      kept: keep === "both" ? [...involved] : [keep],
      superseded,
      resolved: open.length,
    };
  }

  conflicts(userKey: string) {
    const now = this.clock.now();
    return this.memories.conflicts(userKey).map((conflict) => ({
      ...conflict,
      a: viewOf(conflict.a, now),
      b: viewOf(conflict.b, now),
    }));
  }

  runDecay(now: Date = this.clock.now()): DecayResult {
    return runDecay(this.database, now);
  }

  /** For memory_save: was the quote said by this user in this session's latest messages? */
  userSaidRecently(input: { sessionId: string; userKey: string; quote: string }): boolean {
    return userSaidRecently(this.database, input);
  }

  stats(userKey: string | null): MemoryStats {
    return collectStats(this.memories, this.jobs, userKey);
  }
}
