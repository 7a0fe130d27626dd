import type { SqliteDatabase } from "../../storage/database.js";
import { type Bm25Parameters, bm25Idf, SPEAKER_FIELD, speakerTermsOf } from "./bm25.js";
import { DEFAULT_FEEDBACK, type FeedbackParameters, feedbackTerms } from "./feedback.js";
import { fuse, type RankedList } from "./fusion.js";
import { LexicalIndex, type LexicalResult, type ScopeStats } from "./lexical.js";
import { DEFAULT_PRECISION, type PrecisionParameters, rerankForPrecision } from "./precision.js";
import { analyzeQuery, queryTermSequence } from "./query.js";
import {
  type Embedder,
  EmbeddingError,
  type IndexedDocument,
  type SearchHit,
  type SearchNamespace,
  type SearchOptions,
} from "./types.js";
import { VectorStore } from "./vectors.js";

export const DEFAULT_POOL = 100;

export interface SearchIndexOptions {
  embedder?: Embedder;
  /** Pseudo-relevance feedback on the lexical list (default on); false turns it off. */
  feedback?: boolean | FeedbackParameters;
  /** Defaults to BM25_K1 / BM25_B; for experiments, chosen once for all data. */
  bm25?: Bm25Parameters;
  /** Weight of IndexedDocument.context terms (default CONTEXT_WEIGHT). */
  contextWeight?: number;
  /** Related-term expansion of the query (default on). */
  expandQuery?: boolean;
  /** Proximity and own-text coverage reordering of the best lexical candidates (default on). */
  precision?: boolean | PrecisionParameters;
}

/**
 * Hybrid retrieval over documents of the memory store: BM25 over analyzed terms (always; its pool
 * reordered by pseudo-relevance feedback, then by the precision signals of precision.ts), cosine
 * over embedding vectors (when an embedder is configured and vectors exist), fused by reciprocal rank.
 * Writes are synchronous and lexical; vectors are computed later by embedPending().
 */
export class SearchIndex {
  private readonly lexical: LexicalIndex;
  private readonly vectors: VectorStore;
  private readonly embedder: Embedder | undefined;
  private readonly feedback: FeedbackParameters | undefined;
  private readonly expandQuery: boolean;
  private readonly precision: PrecisionParameters | undefined;

  constructor(
    private readonly database: SqliteDatabase,
    options: SearchIndexOptions = {},
  ) {
    this.lexical = new LexicalIndex(database, options.contextWeight, options.bm25);
    this.vectors = new VectorStore(database);
    this.embedder = options.embedder;
    const feedback = options.feedback ?? true;
    this.feedback = feedback === true ? DEFAULT_FEEDBACK : feedback === false ? undefined : feedback;
    this.expandQuery = options.expandQuery ?? true;
    const precision = options.precision ?? true;
    this.precision = precision === true ? DEFAULT_PRECISION : precision === false ? undefined : precision;
  }

  upsert(doc: IndexedDocument): void {
    validateDocument(doc);
    this.database.transaction(() => {
      this.lexical.upsert(doc);
      this.lexical.markChanged();
      this.vectors.invalidate();
    })();
  }

  upsertMany(docs: readonly IndexedDocument[]): void {
    for (const doc of docs) validateDocument(doc);
    this.database.transaction(() => {
      for (const doc of docs) this.lexical.upsert(doc);
      this.lexical.markChanged();
      this.vectors.invalidate();
    })();
  }

  /** Removes every trace of the document (postings, unused terms, vector). False if it was not indexed. */
  remove(namespace: SearchNamespace, id: number): boolean {
    return this.database.transaction(() => {
      const removed = this.lexical.remove(namespace, id);
      if (removed) {
        this.lexical.markChanged();
        this.vectors.invalidate();
      }
      return removed;
    })();
  }

  /** Removes every document of one scope (a person's whole memory). Returns how many. */
  removeScope(namespace: SearchNamespace, scope: string): number {
    return this.database.transaction(() => {
      const docs = this.lexical.documentsOfScope(namespace, scope);
      for (const doc of docs) this.lexical.remove(doc.namespace, doc.id);
      if (docs.length > 0) {
        this.lexical.markChanged();
        this.vectors.invalidate();
      }
      return docs.length;
    })();
  }

  /** Number of documents still without a vector from the configured embedder. */
  pendingEmbeddings(limit = Number.MAX_SAFE_INTEGER): number {
    if (!this.embedder) return 0;
    return this.vectors.pending(this.embedder.id, this.embedder.dimensions, limit).length;
  }

  /**
   * Embeds documents that have no vector from the configured embedder, in batches, until none are
   * left or `max` were done. Returns how many were embedded. Embedder failures propagate.
   */
  async embedPending(
    options: { batchSize?: number; max?: number; signal?: AbortSignal } = {},
  ): Promise<number> {
    const embedder = this.embedder;
    if (!embedder) return 0;
    const batchSize = options.batchSize ?? 64;
    const max = options.max ?? Number.POSITIVE_INFINITY;
    let done = 0;
    while (done < max) {
      options.signal?.throwIfAborted();
      const batch = this.vectors.pending(embedder.id, embedder.dimensions, Math.min(batchSize, max - done));
      if (batch.length === 0) break;
      const vectors = await embedder.embed(
        batch.map((row) => row.text),
        options.signal,
      );
      checkVectors(embedder, vectors, batch.length);
      this.database.transaction(() => {
        batch.forEach((row, index) => {
          const vector = vectors[index];
          if (vector) this.vectors.put(row.id, embedder.id, vector);
        });
        this.vectors.invalidate();
      })();
      done += batch.length;
    }
    return done;
  }

  async search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    const pool = options.pool ?? DEFAULT_POOL;
    if (!Number.isInteger(pool) || pool < 1)
      throw new RangeError(`search pool must be a positive integer, got ${pool}`);
    options.signal?.throwIfAborted();
    const stats = this.lexical.scopeStats(options.namespace, options.scopes);
    if (stats.documents === 0) return [];
    const lists: RankedList[] = [];
    const lexical = this.lexical.snapshot(() => this.lexicalList(query, stats, pool));
    lists.push({ items: lexical });
    if (this.embedder && query.trim() !== "") {
      const [vector] = await this.embedder.embed([query], options.signal);
      if (!vector) throw new EmbeddingError(`embedder ${this.embedder.id} returned no vector for the query`);
      checkVectors(this.embedder, [vector], 1);
      const results = this.vectors.search(vector, this.embedder.id, stats.ids, pool);
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
   * BM25 candidates of the query, best first: the question's terms, then the pool reordered by
   * pseudo-relevance feedback terms, then its head reordered for first-rank precision.
   */
  private lexicalList(query: string, stats: ScopeStats, pool: number): LexicalResult[] {
    const queryWeights = analyzeQuery(query, this.expandQuery);
    let lexical = this.lexical.search(queryWeights, stats, pool);
    const idf = (term: string) => this.idfOf(term, stats);
    if (this.feedback !== undefined && lexical.length > 0) {
      const expanded = feedbackTerms(
        queryWeights,
        lexical,
        (id) => this.lexical.termsOf(id),
        idf,
        this.feedback,
      );
      for (const term of queryWeights.keys()) expanded.delete(term);
      lexical = this.lexical.rescore(lexical, expanded, stats);
    }
    const precision = this.precision;
    if (precision === undefined || lexical.length < 2) return lexical;
    const queryTerms = queryTermSequence(query);
    // Reading a candidate's stored terms costs a statement and a parse: skip what cannot score.
    const namesSpeaker =
      precision.speaker > 0 &&
      queryTerms.some((term) => this.lexical.documentFrequency(`${SPEAKER_FIELD}${term}`, stats.ids) > 0);
    const readsText = (precision.proximity > 0 && queryTerms.length > 1) || precision.coverage > 0;
    if (!namesSpeaker && !readsText) return lexical;
    return rerankForPrecision(
      lexical,
      queryTerms,
      (id) => ({
        terms: readsText ? this.lexical.ownTermsOf(id) : [],
        speaker: namesSpeaker ? speakerTermsOf(this.lexical.termsOf(id)) : [],
      }),
      idf,
      precision,
    );
  }

  private idfOf(term: string, stats: { ids: number[]; documents: number }): number {
    const df = this.lexical.documentFrequency(term, stats.ids);
    return df === 0 ? 0 : bm25Idf(stats.documents, df);
  }
}

function validateDocument(doc: IndexedDocument): void {
  if (!Number.isSafeInteger(doc.id)) throw new RangeError(`document id must be an integer, got ${doc.id}`);
  if (doc.scope.trim() === "") throw new RangeError(`document ${doc.namespace}/${doc.id} has an empty scope`);
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
