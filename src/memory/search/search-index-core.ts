import type { SqliteDatabase } from "../../storage/database.js";
import {
  BM25_B,
  BM25_K1,
  type Bm25Parameters,
  Bm25Query,
  bm25Idf,
  ROLE_FIELD,
  SESSION_FIELD,
  SPEAKER_FIELD,
  speakerTermsOf,
} from "./bm25.js";
import { DEFAULT_FEEDBACK, type FeedbackParameters, feedbackTerms } from "./feedback.js";
import { FIRST_STAGE_BUDGET, firstStage } from "./first-stage.js";
import { fuse, type RankedList } from "./fusion.js";
import { LexicalIndex, type ScopeStats } from "./lexical.js";

export { FIRST_STAGE_BUDGET } from "./first-stage.js";

import {
  DEFAULT_PRECISION,
  DEFAULT_RERANK_GUARD,
  guardReranking,
  type PrecisionParameters,
  type RerankGuard,
  rerankForPrecision,
} from "./precision.js";
import { addressedRole, analyzeQuery, queryTermSequence } from "./query.js";
import { boostBySession, NEIGHBOUR_MU, smoothByNeighbours } from "./sessions.js";
import { deleteVectorsOf } from "./sqlite-vec.js";
import { DEFAULT_TIME_BOUND, splitTimeTerms, type TimeBound } from "./time-terms.js";
import {
  type Embedder,
  EmbeddingError,
  type IndexedDocument,
  type SearchHit,
  type SearchNamespace,
  type SearchOptions,
  type SpeakerRole,
} from "./types.js";
import type { Quantization, VectorResult, VectorStore } from "./vectors.js";

export const DEFAULT_POOL = 100;

/**
 * FTS5 returns this many times the pool as first-stage candidates: its bm25() weighs every query
 * term alike, so a document the weighted second stage puts in the pool can sit a little lower there.
 */
export const FIRST_STAGE_FACTOR = 2;

export interface LexicalResult {
  documentId: number;
  score: number;
}

export interface SearchIndexOptions {
  embedder?: Embedder;
  /** How vectors are stored and scanned (default DEFAULT_QUANTIZATION, "binary"); see vectors.ts. */
  quantization?: Quantization;
  /**
   * Pseudo-relevance feedback on the lexical list (default off: on LongMemEval dev it moved
   * recall@10 / nDCG@10 by -0.025 / -0.047, on LoCoMo dev by +0.021 / -0.002; see the
   * ablation in BENCHMARKS.md). True or parameters turn it on.
   */
  feedback?: boolean | FeedbackParameters;
  /** Defaults to BM25_K1 / BM25_B; for experiments, chosen once for all data. */
  bm25?: Bm25Parameters;
  /** Weight of IndexedDocument.context terms (default CONTEXT_WEIGHT). */
  contextWeight?: number;
  /** Terms' worth a context is scaled down to when longer (default CONTEXT_CAP; Infinity: no cap). */
  contextCap?: number;
  /**
   * Session-level evidence (sessions.ts): weight of the session's best other candidate (default 0,
   * off: it helped LoCoMo dev and hurt LongMemEval dev, see sessions.ts; SESSION_WEIGHT turns it on).
   */
  sessionWeight?: number;
  /**
   * Neighbour smoothing (sessions.ts smoothByNeighbours): a short turn's score moves toward its best
   * adjacent candidate's by mu / (length + mu). Default NEIGHBOUR_MU; 0 turns it off.
   */
  neighbourMu?: number;
  /** Related-term expansion of the query (default on). */
  expandQuery?: boolean;
  /** Speaker-aware (and optional proximity/coverage) reordering of the lexical list (default on). */
  precision?: boolean | PrecisionParameters;
  /** Index the words of when a document happened (see time-terms.ts; default on). */
  timeWords?: boolean;
  /** Index a named speaker's name as a context-weight word too (bm25.ts SPEAKER_WORDS; default on). */
  speakerWords?: boolean;
  /** Drop answer-shape words ("kind", "how many times") from queries (default on). */
  questionWords?: boolean;
  /**
   * Documents FTS5 may rank per first-stage query (default FIRST_STAGE_BUDGET);
   * Infinity ranks every match (memory-scale measures how far the bounded stage departs from it).
   */
  firstStageBudget?: number;
  /** How far the stages after exact BM25 may change its order (precision.ts RerankGuard). */
  rerankGuard?: RerankGuard;
  /** Bound the query's time words by the rest of its words (rankWithTimeBound; default on, session 12). */
  timeBound?: TimeBound;
}

/**
 * Hybrid retrieval over documents of the memory store. Words: FTS5 finds the candidates (bm25()
 * with column weights over the analyzer's terms), exact BM25 with weighted query terms orders them,
 * pseudo-relevance feedback and the precision signals of precision.ts reorder that pool. Vectors:
 * cosine k-nearest-neighbours in sqlite-vec, when an embedder is configured. The two lists are fused
 * by reciprocal rank. Writes are synchronous and lexical, in one transaction; vectors are computed
 * later by embedPending() and inserted one row each.
 */
/**
 * Builds the vector store of an index with an embedder. Given by SearchIndex (search-index.ts), so
 * this module does not import the vector code: an index without embeddings (word search only, the
 * default) never loads it (issue 11, memory-command latency).
 */
export type VectorStoreFactory = (
  database: SqliteDatabase,
  embedder: Embedder,
  quantization: Quantization | undefined,
) => VectorStore;

export class SearchIndexCore {
  private readonly lexical: LexicalIndex;
  private readonly vectors: VectorStore | undefined;
  private readonly embedder: Embedder | undefined;
  private readonly feedback: FeedbackParameters | undefined;
  private readonly expandQuery: boolean;
  private readonly precision: PrecisionParameters | undefined;
  private readonly bm25: Bm25Parameters;
  private readonly dropQuestionWords: boolean;
  private readonly firstStageBudget: number;
  private readonly sessionWeight: number;
  private readonly neighbourMu: number;
  private readonly rerankGuard: RerankGuard;
  private readonly timeBound: TimeBound;

  constructor(
    private readonly database: SqliteDatabase,
    options: SearchIndexOptions = {},
    vectorStore?: VectorStoreFactory,
  ) {
    // Freed pages are zeroed, so a removed document's text and terms do not linger in the file.
    database.pragma("secure_delete = ON");
    this.lexical = new LexicalIndex(
      database,
      options.contextWeight,
      options.timeWords ?? true,
      options.contextCap,
      options.speakerWords,
    );
    this.embedder = options.embedder;
    if (options.embedder && !vectorStore) {
      throw new TypeError(
        "an index with an embedder stores vectors: build it with SearchIndex (search-index.ts)",
      );
    }
    this.vectors =
      options.embedder && vectorStore
        ? vectorStore(database, options.embedder, options.quantization)
        : undefined;
    const feedback = options.feedback ?? false;
    this.feedback = feedback === true ? DEFAULT_FEEDBACK : feedback === false ? undefined : feedback;
    this.expandQuery = options.expandQuery ?? true;
    const precision = options.precision ?? true;
    this.precision = precision === true ? DEFAULT_PRECISION : precision === false ? undefined : precision;
    this.bm25 = options.bm25 ?? { k1: BM25_K1, b: BM25_B };
    this.dropQuestionWords = options.questionWords ?? true;
    this.firstStageBudget = options.firstStageBudget ?? FIRST_STAGE_BUDGET;
    if (!(this.firstStageBudget >= 1))
      throw new RangeError(`firstStageBudget must be at least 1, got ${this.firstStageBudget}`);
    this.sessionWeight = options.sessionWeight ?? 0;
    this.neighbourMu = options.neighbourMu ?? NEIGHBOUR_MU;
    this.rerankGuard = options.rerankGuard ?? DEFAULT_RERANK_GUARD;
    this.timeBound = options.timeBound ?? DEFAULT_TIME_BOUND;
  }

  upsert(doc: IndexedDocument): void {
    validateDocument(doc);
    this.database.transaction(() => this.upsertOne(doc))();
  }

  upsertMany(docs: readonly IndexedDocument[]): void {
    for (const doc of docs) validateDocument(doc);
    this.database.transaction(() => {
      for (const doc of docs) this.upsertOne(doc);
    })();
  }

  private upsertOne(doc: IndexedDocument): void {
    const previous = this.lexical.remove(doc.namespace, doc.id);
    if (previous !== undefined) deleteVectorsOf(this.database, previous);
    this.lexical.upsert(doc);
  }

  /**
   * Removes every trace of the document: its row, its FTS5 terms, its document-frequency rows and
   * its vector in every sqlite-vec table. False if it was not indexed. Forgetting calls this.
   *
   * FTS5's secure-delete removes the document's entries from the index segments but can leave a
   * term's text in a segment's page keys; `optimize` rewrites the index into one segment without
   * them, and SQLite's secure_delete (set by the constructor) zeroes the freed pages. That costs
   * about 0.15 s at 100,000 documents: forgetting is rare, and it must not leave words behind.
   */
  remove(namespace: SearchNamespace, id: number): boolean {
    return this.removeMany(namespace, [id]) === 1;
  }

  /** remove() for several documents, rewriting the FTS5 index once. Returns how many were indexed. */
  removeMany(namespace: SearchNamespace, ids: readonly number[]): number {
    return this.database.transaction(() => {
      let removed = 0;
      for (const id of ids) {
        const documentId = this.lexical.remove(namespace, id);
        if (documentId === undefined) continue;
        deleteVectorsOf(this.database, documentId);
        removed++;
      }
      if (removed > 0) this.lexical.compact();
      return removed;
    })();
  }

  /** Removes every document of one scope (a person's whole memory). Returns how many. */
  removeScope(namespace: SearchNamespace, scope: string): number {
    const docs = this.lexical.documentsOfScope(namespace, scope);
    return this.removeMany(
      namespace,
      docs.map((doc) => doc.id),
    );
  }

  /** Number of documents still without a vector from the configured embedder. */
  pendingEmbeddings(limit = Number.MAX_SAFE_INTEGER): number {
    if (!this.vectors) return 0;
    return this.vectors.pendingCount(limit);
  }

  /**
   * Embeds documents that have no vector from the configured embedder, in batches, until none are
   * left or `max` were done. Returns how many were embedded. Embedder failures propagate.
   */
  async embedPending(
    options: { batchSize?: number; max?: number; signal?: AbortSignal } = {},
  ): Promise<number> {
    const embedder = this.embedder;
    const vectors = this.vectors;
    if (!embedder || !vectors) return 0;
    const batchSize = options.batchSize ?? 64;
    const max = options.max ?? Number.POSITIVE_INFINITY;
    let done = 0;
    while (done < max) {
      options.signal?.throwIfAborted();
      const batch = vectors.pending(Math.min(batchSize, max - done));
      if (batch.length === 0) break;
      const embedded = await embedder.embed(
        batch.map((row) => row.text),
        options.signal,
      );
      checkVectors(embedder, embedded, batch.length);
      this.database.transaction(() => {
        // A document removed while its batch was being embedded stays removed. One statement for
        // the batch: one per document was a tenth of embedding a million memories.
        const indexed = this.lexical.indexed(batch.map((row) => row.id));
        batch.forEach((row, index) => {
          const vector = embedded[index];
          if (vector && indexed.has(row.id)) vectors.put(row.id, row.scope_id, vector);
        });
      })();
      this.lexical.clearCaches();
      done += batch.length;
    }
    return done;
  }

  async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    const pool = options.pool ?? DEFAULT_POOL;
    if (!Number.isInteger(pool) || pool < 1)
      throw new RangeError(`search pool must be a positive integer, got ${pool}`);
    options.signal?.throwIfAborted();
    this.lexical.clearCaches();
    const stats = this.lexical.scopeStats(options.namespace, options.scopes);
    if (stats.documents === 0) return [];
    const lists: RankedList[] = [{ items: this.lexicalList(query, stats, pool) }];
    if (this.embedder && this.vectors && query.trim() !== "") {
      const results = await this.nearest(query, stats, pool, false, options.signal);
      lists.push({
        items: results.map((result) => ({ documentId: result.documentId, score: result.similarity })),
      });
    }
    const hits: SearchHit[] = [];
    const fused = fuse(lists).slice(0, pool);
    const keys = this.lexical.keysOf(fused.map((candidate) => candidate.documentId));
    for (const candidate of fused) {
      const key = keys.get(candidate.documentId);
      if (!key) continue;
      hits.push({
        ...key,
        relevance: candidate.relevance,
        lexicalRank: candidate.ranks[0] ?? null,
        vectorRank: candidate.ranks[1] ?? null,
      });
    }
    return hits;
  }

  /**
   * The `limit` documents whose vectors are nearest the query's, best first, with their cosine
   * similarity: as search() finds them, or (`exact`) by comparing every vector, which memory-scale
   * uses to measure what quantization loses. Empty without an embedder.
   */
  async nearestVectors(
    query: string,
    options: Pick<SearchOptions, "namespace" | "scopes" | "signal">,
    limit: number,
    exact = false,
  ): Promise<{ id: number; similarity: number }[]> {
    if (!this.embedder || !this.vectors) return [];
    const stats = this.lexical.scopeStats(options.namespace, options.scopes);
    if (stats.documents === 0) return [];
    const results = await this.nearest(query, stats, limit, exact, options.signal);
    const keys = this.lexical.keysOf(results.map((result) => result.documentId));
    return results.flatMap((result) => {
      const key = keys.get(result.documentId);
      return key ? [{ id: key.id, similarity: result.similarity }] : [];
    });
  }

  private async nearest(
    query: string,
    stats: ScopeStats,
    limit: number,
    exact: boolean,
    signal: AbortSignal | undefined,
  ): Promise<VectorResult[]> {
    const embedder = this.embedder;
    const vectors = this.vectors;
    if (!embedder || !vectors) return [];
    const [vector] = await embedder.embed([query], signal);
    if (!vector) throw new EmbeddingError(`embedder ${embedder.id} returned no vector for the query`);
    checkVectors(embedder, [vector], 1);
    const scopeFilter = this.lexical.scopeFilter(stats.ids);
    return exact
      ? vectors.searchExact(vector, stats.ids, limit)
      : vectors.search(vector, stats.ids, limit, scopeFilter.length === 0, stats.documents);
  }

  /**
   * Lexical candidates of the query, best first: FTS5's first stage, scored again by exact weighted
   * BM25, then reordered by pseudo-relevance feedback terms (off by default), session evidence (off by
   * default) and neighbour smoothing (sessions.ts), then its head reordered for first-rank precision.
   */
  private lexicalList(query: string, stats: ScopeStats, pool: number): LexicalResult[] {
    let first: LexicalResult[] = [];
    const reranked = this.rerankedList(query, stats, pool, (list) => {
      first = list;
    });
    return guardReranking(first, reranked, this.rerankGuard);
  }

  /** The lexical list after every stage; `onFirstStage` receives exact BM25 of the query's own words. */
  private rerankedList(
    query: string,
    stats: ScopeStats,
    pool: number,
    onFirstStage: (list: LexicalResult[]) => void,
  ): LexicalResult[] {
    const queryWeights = analyzeQuery(query, this.expandQuery, this.dropQuestionWords);
    if (queryWeights.size === 0) return [];
    // One statement for every query word's document count, which both stages read.
    this.lexical.prefetchFrequencies(queryWeights.keys(), stats.ids);
    const candidateIds = firstStage(
      this.lexical,
      queryWeights,
      stats,
      this.firstStageBudget,
      pool * FIRST_STAGE_FACTOR,
    );
    if (candidateIds.length === 0) return [];
    const stored = this.lexical.termsOf(candidateIds);
    const idf = (term: string) => this.idfOf(term, stats);
    const score = (query: Bm25Query, documentId: number) => {
      const document = stored.get(documentId);
      if (!document) return 0;
      return query.score(document.terms, document.length, stats.averageLength);
    };
    const scorer = new Bm25Query(queryWeights, idf, this.bm25);
    let lexical = this.rankWithTimeBound(candidateIds, queryWeights, idf, score).slice(0, pool);
    if (this.rerankGuard === "cap" || this.rerankGuard === "fuse") {
      const ownWords = new Map([...queryWeights].filter(([, weight]) => weight === 1));
      const plain = new Bm25Query(ownWords, idf, this.bm25);
      onFirstStage(rankBy(candidateIds, (documentId) => score(plain, documentId)).slice(0, pool));
    }
    if (this.feedback !== undefined && lexical.length > 0) {
      const feedbackDocuments = lexical.slice(0, this.feedback.documents);
      this.lexical.prefetchFrequencies(
        feedbackDocuments.flatMap((result) => [...(stored.get(result.documentId)?.terms.all().keys() ?? [])]),
        stats.ids,
      );
      const expanded = feedbackTerms(
        queryWeights,
        lexical,
        (documentId) => stored.get(documentId)?.terms.all() ?? new Map(),
        idf,
        this.feedback,
      );
      for (const term of queryWeights.keys()) expanded.delete(term);
      if (expanded.size > 0) {
        const expandedScorer = new Bm25Query(expanded, idf, this.bm25);
        lexical = rankBy(
          lexical.map((result) => result.documentId),
          (documentId) => score(scorer, documentId) + score(expandedScorer, documentId),
        );
      }
    }
    if (this.sessionWeight > 0) {
      lexical = boostBySession(
        lexical,
        (documentId) => stored.get(documentId)?.terms.fieldValue(SESSION_FIELD),
        this.sessionWeight,
      );
    }
    if (this.neighbourMu > 0) {
      const keys = this.lexical.keysOf(lexical.map((result) => result.documentId));
      lexical = smoothByNeighbours(
        lexical,
        (documentId) => {
          const document = stored.get(documentId);
          const session = document?.terms.fieldValue(SESSION_FIELD);
          const key = keys.get(documentId);
          if (document === undefined || session === undefined || key === undefined) return undefined;
          return { session, order: key.id, length: document.length };
        },
        this.neighbourMu,
      );
    }
    const precision = this.precision;
    if (precision === undefined || lexical.length < 2) return lexical;
    const queryTerms = queryTermSequence(query, this.dropQuestionWords);
    // Reading a candidate's text costs a statement and an analysis: skip what cannot score.
    const namesSpeaker =
      precision.speaker > 0 &&
      queryTerms.some((term) => this.lexical.documentFrequency(`${SPEAKER_FIELD}${term}`, stats.ids) > 0);
    const readsText = (precision.proximity > 0 && queryTerms.length > 1) || precision.coverage > 0;
    const addressed = precision.role > 0 ? addressedRole(query) : undefined;
    if (!namesSpeaker && !readsText && addressed === undefined) return lexical;
    return rerankForPrecision(
      lexical,
      queryTerms,
      (documentId) => ({
        terms: readsText ? this.lexical.ownTermsOf(documentId) : [],
        speaker: namesSpeaker ? speakerTermsOf(stored.get(documentId)?.terms.all() ?? new Map()) : [],
        role:
          addressed === undefined
            ? undefined
            : (stored.get(documentId)?.terms.fieldValue(ROLE_FIELD) as SpeakerRole | undefined),
      }),
      idf,
      this.rerankGuard === "bonus-cap" ? { ...precision, capBonus: true } : precision,
      addressed,
    );
  }

  /**
   * Exact BM25 of the candidates, best first, with the query's time words (time-terms.ts
   * splitTimeTerms) bounded: when the rest of the query matches something in the scope, a document's
   * score from time words is at most its score from the rest, and documents matched by time words
   * alone follow every document the rest matches (in their own order). A query of time words only
   * ("what did I do in May 2023") is scored as before.
   */
  private rankWithTimeBound(
    candidateIds: readonly number[],
    queryWeights: ReadonlyMap<string, number>,
    idf: (term: string) => number,
    score: (query: Bm25Query, documentId: number) => number,
  ): LexicalResult[] {
    const { time, topic } = splitTimeTerms(queryWeights);
    if (this.timeBound === "off" || time.size === 0 || ![...topic.keys()].some((term) => idf(term) > 0)) {
      const scorer = new Bm25Query(queryWeights, idf, this.bm25);
      return rankBy(candidateIds, (documentId) => score(scorer, documentId));
    }
    const topicScorer = new Bm25Query(topic, idf, this.bm25);
    const timeScorer = new Bm25Query(time, idf, this.bm25);
    const topicResults: LexicalResult[] = [];
    const timeOnly: LexicalResult[] = [];
    for (const documentId of candidateIds) {
      const topicScore = score(topicScorer, documentId);
      const timeScore = score(timeScorer, documentId);
      if (topicScore > 0)
        topicResults.push({
          documentId,
          score: topicScore + (this.timeBound === "cap" ? Math.min(timeScore, topicScore) : timeScore),
        });
      else if (timeScore > 0) timeOnly.push({ documentId, score: timeScore });
    }
    const byScore = (x: LexicalResult, y: LexicalResult) => y.score - x.score || x.documentId - y.documentId;
    topicResults.sort(byScore);
    timeOnly.sort(byScore);
    if (topicResults.length === 0) return timeOnly;
    // Scaled under the lowest topic match, so later stages see the same order and positive scores.
    const floor = topicResults.at(-1)?.score ?? 0;
    const highest = timeOnly[0]?.score ?? 0;
    return [
      ...topicResults,
      ...timeOnly.map((result) => ({
        documentId: result.documentId,
        score: (floor * result.score) / (2 * highest),
      })),
    ];
  }

  private idfOf(term: string, stats: ScopeStats): number {
    const df = this.lexical.documentFrequency(term, stats.ids);
    return df === 0 ? 0 : bm25Idf(stats.documents, df);
  }
}

/** Documents with a positive score, best first; ties by internal id (insertion order). */
function rankBy(documentIds: readonly number[], score: (documentId: number) => number): LexicalResult[] {
  const results: LexicalResult[] = [];
  for (const documentId of documentIds) {
    const value = score(documentId);
    if (value > 0) results.push({ documentId, score: value });
  }
  results.sort((x, y) => y.score - x.score || x.documentId - y.documentId);
  return results;
}

function validateDocument(doc: IndexedDocument): void {
  if (!Number.isSafeInteger(doc.id)) throw new RangeError(`document id must be an integer, got ${doc.id}`);
  if (doc.scope.trim() === "") throw new RangeError(`document ${doc.namespace}/${doc.id} has an empty scope`);
  if (doc.occurredAt !== undefined && Number.isNaN(Date.parse(doc.occurredAt)))
    throw new RangeError(`document ${doc.namespace}/${doc.id} has an invalid occurredAt "${doc.occurredAt}"`);
}

function checkVectors(embedder: Embedder, vectors: readonly Float32Array[], expected: number): void {
  if (vectors.length !== expected) {
    throw new EmbeddingError(
      `embedder ${embedder.id} returned ${vectors.length} vectors for ${expected} texts`,
    );
  }
  for (const vector of vectors) {
    if (vector.length !== embedder.dimensions) {
      throw new EmbeddingError(
        `embedder ${embedder.id} returned a ${vector.length}-dimension vector, expected ${embedder.dimensions}: ` +
          "check MERCURY_EMBEDDINGS_MODEL matches the configured dimensions",
      );
    }
  }
}
