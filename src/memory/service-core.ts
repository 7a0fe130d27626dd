import { type Clock, systemClock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";
import type { ConsolidationOutcome } from "./consolidation/consolidate.js";
import type { ImportConsolidation } from "./consolidation/import-merge.js";
import type { DrainSummary } from "./consolidation/queue-drain.js";
import type { RunSummary } from "./extraction/runner.js";
import { EmbeddingError } from "./search/types.js";
import type { MemoryServiceOptions, RememberInput } from "./service-options.js";
import { reindexEpisodesIfMigrated } from "./store/episode-reindex.js";
import { type Episode, type EpisodeInput, EpisodeRepository } from "./store/episodes.js";
import { type ExtractionJob, JobRepository } from "./store/jobs.js";
import { JudgeQueue } from "./store/judge-queue.js";
import { type ListFilter, MemoryRepository } from "./store/memory-repo.js";
import type { Candidate, Memory, MemoryIndex, MemoryVersion, Receipt } from "./store/types.js";
import { type MemoryView, requireText, type SearchResult, viewOf } from "./view.js";

export type { MemoryServiceOptions, RememberInput } from "./service-options.js";

/** How long the embedder is left alone after it failed (searches use words only meanwhile). */
const EMBEDDINGS_RETRY_MS = 60_000;

export type { MemoryView, SearchResult };

/**
 * The memory store's reads and writes that `mercury memory add|search` need: remember
 * (consolidation), search, recall, list/show/history, episodes, extraction. Extraction, the
 * judge-queue drain and import merging are imported when first used. `MemoryService`
 * (service.ts) adds edit, forget, why, conflict resolution, decay and stats, whose modules the two
 * hot commands never load (BENCHMARKS.md, issue 11 memory latency). Everyone else uses MemoryService.
 */
export class MemoryCore {
  readonly database: SqliteDatabase;
  readonly memories: MemoryRepository;
  readonly episodes: EpisodeRepository;
  readonly jobs: JobRepository;
  readonly judgeQueue: JudgeQueue;
  protected readonly index: MemoryIndex;
  protected readonly clock: Clock;
  protected readonly options: MemoryServiceOptions;
  private recoveredInterruptedJobs = false;
  /** Consolidation reads (search) then writes; one at a time, or two copies of a fact both get created. */
  private consolidating: Promise<unknown> = Promise.resolve();

  constructor(options: MemoryServiceOptions) {
    this.options = options;
    this.database = options.database;
    this.index = {
      upsert: (doc) => options.index.upsert(doc),
      remove: (namespace, id) => options.index.remove(namespace, id),
      removeMany: (namespace, ids) => options.index.removeMany(namespace, ids),
      search: (query, searchOptions) => this.searchWithFallback(query, searchOptions),
    };
    this.clock = options.clock ?? systemClock;
    this.memories = new MemoryRepository(options.database);
    this.episodes = new EpisodeRepository(options.database);
    this.jobs = new JobRepository(options.database);
    this.judgeQueue = new JudgeQueue(options.database);
    // Migration 012: turns indexed by an older build get today's document, once (one indexed read).
    const reindexed = reindexEpisodesIfMigrated(options.database, options.index);
    if (reindexed !== undefined)
      options.log?.("info", `re-indexed ${reindexed} conversation turns with their context (migration 012)`);
  }

  /** Notices raised by this service (also sent to onNotice), for callers that print them. */
  readonly notices: string[] = [];

  private notice(message: string): void {
    if (this.notices.includes(message)) return;
    this.notices.push(message);
    this.options.log?.("warn", message);
    this.options.onNotice?.(message);
  }

  /**
   * After the embedder failed, it is left alone for EMBEDDINGS_RETRY_MS: a hung server is waited
   * for once, not by every search and write that follows (a `memory add` searches, then embeds).
   */
  private embeddingsDownUntil = 0;

  private embeddingsDown(): boolean {
    return this.clock.now().getTime() < this.embeddingsDownUntil;
  }

  private embeddingsFailed(): void {
    this.embeddingsDownUntil = this.clock.now().getTime() + EMBEDDINGS_RETRY_MS;
  }

  private async searchWithFallback(
    query: string,
    options: Parameters<MemoryIndex["search"]>[1],
  ): ReturnType<MemoryIndex["search"]> {
    const wordIndex = this.options.wordIndex;
    if (wordIndex && this.embeddingsDown()) return wordIndex.search(query, options);
    try {
      return await this.options.index.search(query, options);
    } catch (error) {
      if (!(error instanceof EmbeddingError) || !wordIndex) throw error;
      this.embeddingsFailed();
      this.notice(`embeddings unavailable (${error.message}); using word search only`);
      return wordIndex.search(query, options);
    }
  }

  private async embedWritten(): Promise<void> {
    if (!this.options.embedPending) return;
    const later = "stored without a vector, it will be embedded later";
    if (this.embeddingsDown()) {
      this.notice(`embeddings unavailable (the embedding server failed just before); ${later}`);
      return;
    }
    try {
      await this.options.embedPending();
    } catch (error) {
      if (!(error instanceof EmbeddingError)) throw error;
      this.embeddingsFailed();
      this.notice(`embeddings unavailable (${error.message}); ${later}`);
    }
  }

  protected emit(receipt: Receipt): void {
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
    // Queued first, loaded inside (on the first write: a search never needs consolidation's rules).
    return this.oneAtATime(async () => {
      const { consolidate } = await import("./consolidation/consolidate.js");
      return consolidate(this.consolidationDeps(), candidate, signal);
    });
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
      if (episode.text.trim() !== "") this.index.upsert(this.episodes.document(episode));
      // The turns before it now have it as context (search/turn-context.ts).
      const previous = this.episodes.getMany(this.episodes.neighbourIds([episode.id]));
      for (const turn of previous.values())
        if (turn.id < episode.id && turn.text.trim() !== "") this.index.upsert(this.episodes.document(turn));
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
    const summary = await this.oneAtATime(async () => {
      const { consolidateImported } = await import("./consolidation/import-merge.js");
      return consolidateImported(this.consolidationDeps(), importedIds, wasStored, signal);
    });
    await this.embedWritten();
    return summary;
  }

  /** Judges the pairs that waited for the model judge; a no-op without one. */
  runJudgeQueue(signal?: AbortSignal): Promise<DrainSummary> {
    return this.oneAtATime(async () => {
      const { drainJudgeQueue } = await import("./consolidation/queue-drain.js");
      return drainJudgeQueue(this.consolidationDeps(), signal);
    });
  }

  async runPendingExtractions(signal?: AbortSignal): Promise<RunSummary> {
    if (this.judgeQueue.count(null) > 0) await this.runJudgeQueue(signal);
    const recoverInterrupted = !this.recoveredInterruptedJobs;
    this.recoveredInterruptedJobs = true;
    // Both loaded here: `memory add|search` never run extraction.
    const [{ runPendingExtractions }, { sourceTurnTime }] = await Promise.all([
      import("./extraction/runner.js"),
      import("./store/provenance.js"),
    ]);
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
    // Loaded on first use (with the final ranking under it): `memory add` never ranks recalled memories.
    const { searchMemories } = await import("./retrieval.js");
    return searchMemories(this.retrievalDeps(), input);
  }

  /**
   * The system-prompt section of relevant memories, within `tokenBudget` (ceil(chars/4) tokens):
   * the profile first, then query-matched memories (see recall-section.ts).
   */
  async recall(input: {
    userKey: string;
    query: string;
    tokenBudget: number;
    project?: string | null;
  }): Promise<{ section: string; memoryIds: number[] }> {
    // Loaded on first use: a `memory search` never builds a prompt section.
    const { recallSection } = await import("./recall-section.js");
    return recallSection(this.retrievalDeps(), input);
  }

  async searchEpisodes(input: {
    userKey: string;
    query: string;
    limit?: number;
  }): Promise<{ episode: Episode; relevance: number }[]> {
    const { searchEpisodes } = await import("./retrieval.js");
    return searchEpisodes(this.retrievalDeps(), input);
  }

  protected retrievalDeps() {
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

  conflicts(userKey: string) {
    const now = this.clock.now();
    return this.memories.conflicts(userKey).map((conflict) => ({
      ...conflict,
      a: viewOf(conflict.a, now),
      b: viewOf(conflict.b, now),
    }));
  }
}
