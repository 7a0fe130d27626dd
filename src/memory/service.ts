import { type Clock, systemClock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";
import { resolveConflict } from "./conflict-resolution.js";
import { type ConsolidationOutcome, consolidate } from "./consolidation/consolidate.js";
import { consolidateImported, type ImportConsolidation } from "./consolidation/import-merge.js";
import { type DrainSummary, drainJudgeQueue } from "./consolidation/queue-drain.js";
import { editMemory } from "./edit.js";
import { claimedBy } from "./extraction/attribution.js";
import { type RunSummary, runPendingExtractions } from "./extraction/runner.js";
import { type ForgetResult, forgetMemory } from "./forget.js";
import { profileSection, recallSection, searchEpisodes, searchMemories } from "./retrieval.js";
import { EmbeddingError } from "./search/types.js";
import type { MemoryServiceOptions, RememberInput } from "./service-options.js";
import { type Episode, type EpisodeInput, EpisodeRepository } from "./store/episodes.js";
import { type ExtractionJob, JobRepository } from "./store/jobs.js";
import { JudgeQueue } from "./store/judge-queue.js";
import { type ListFilter, MemoryRepository } from "./store/memory-repo.js";
import { type SourceTurn, sourceTurns, sourceTurnTime } from "./store/provenance.js";
import { collectStats, type MemoryStats } from "./store/stats.js";
import type { Candidate, Memory, MemoryIndex, MemoryVersion, Receipt } from "./store/types.js";
import { recentUserTexts, userSaidRecently } from "./store/user-words.js";
import { type DecayResult, runDecay } from "./tiers.js";
import { type MemoryView, requireText, type SearchResult, viewOf } from "./view.js";

export type { MemoryServiceOptions, RememberInput } from "./service-options.js";
export type { MemoryStats, MemoryView, SearchResult };

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
    return this.oneAtATime(() => consolidate(this.consolidationDeps(), candidate, signal));
  }

  /** Runs consolidation work after the work already queued (reads then writes: never two at once). */
  private oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const run = this.consolidating.then(work);
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
          // Turns of one chat session share a key: search weighs a turn by its session too (sessions.ts).
          session: episode.sessionId,
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
    const summary = await this.oneAtATime(() =>
      consolidateImported(this.consolidationDeps(), importedIds, wasStored, signal),
    );
    await this.embedWritten();
    return summary;
  }

  /** Judges the pairs that waited for the model judge; a no-op without one. */
  runJudgeQueue(signal?: AbortSignal): Promise<DrainSummary> {
    return this.oneAtATime(() => drainJudgeQueue(this.consolidationDeps(), signal));
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
  search(input: {
    userKey: string;
    query: string;
    limit?: number;
    includeSuperseded?: boolean;
    project?: string | null;
  }): Promise<SearchResult[]> {
    return searchMemories(this.retrievalDeps(), input);
  }

  /**
   * The system-prompt section of relevant memories, within `tokenBudget` (ceil(chars/4) tokens):
   * the profile first, then query-matched memories (see retrieval.ts).
   */
  recall(input: {
    userKey: string;
    query: string;
    tokenBudget: number;
    project?: string | null;
  }): Promise<{ section: string; memoryIds: number[] }> {
    return recallSection(this.retrievalDeps(), input);
  }

  /** The always-present block of core facts and open conflicts (see store/profile.ts). */
  profile(input: { userKey: string; tokenBudget?: number; project?: string | null }): {
    section: string;
    memoryIds: number[];
  } {
    return profileSection(this.retrievalDeps(), input);
  }

  searchEpisodes(input: {
    userKey: string;
    query: string;
    limit?: number;
  }): Promise<{ episode: Episode; relevance: number }[]> {
    return searchEpisodes(this.retrievalDeps(), input);
  }

  private retrievalDeps() {
    return { index: this.index, memories: this.memories, episodes: this.episodes, clock: this.clock };
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
    const { before, after } = editMemory(
      { database: this.database, memories: this.memories, index: this.index },
      { id, userKey, text, at: this.clock.now().toISOString() },
    );
    this.emit({ kind: "updated", userKey, text: `Updated: ${after.text} (was: ${before.text})` });
    return viewOf(after, this.clock.now());
  }

  /** Erases a memory and every trace of its text (see forget.ts). Only its owner can. */
  forget(id: number, userKey: string): ForgetResult {
    const result = forgetMemory(
      {
        database: this.database,
        memories: this.memories,
        index: this.index,
        ...(this.options.log ? { log: this.options.log } : {}),
        ...(this.options.databaseCopies ? { databaseCopies: this.options.databaseCopies } : {}),
      },
      id,
      userKey,
      this.clock.now().toISOString(),
    );
    this.emit({ kind: "forgotten", userKey, memoryId: id, text: `Forgotten: memory #${id}` });
    return result;
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

  /** Settles the open conflicts of a memory: keep one, or both (see conflict-resolution.ts). */
  resolveConflict(
    id: number,
    userKey: string,
    keep: number | "both",
  ): { kept: number[]; superseded: number[]; resolved: number } {
    const result = resolveConflict(
      { database: this.database, memories: this.memories },
      { id, userKey, keep, at: this.clock.now().toISOString() },
    );
    this.emit({ kind: "updated", userKey, memoryId: id, text: `Resolved conflict of memory #${id}` });
    return result;
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

  /**
   * For memory_save: did this user say the quote in this session's latest messages — and, given the
   * fact, say it there as their own plain claim (see extraction/attribution.ts `claimedBy`)?
   */
  userSaidRecently(input: { sessionId: string; userKey: string; quote: string; factText?: string }): boolean {
    if (input.factText === undefined) return userSaidRecently(this.database, input);
    const { factText } = input;
    return recentUserTexts(this.database, input).some((text) => claimedBy(text, input.quote, factText));
  }

  stats(userKey: string | null): MemoryStats {
    return collectStats(this.memories, this.jobs, userKey, this.judgeQueue);
  }
}
