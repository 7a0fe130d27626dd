import type { SqliteDatabase } from "../../storage/database.js";
import { analyze } from "../text/analyze.js";
import {
  BM25_B,
  BM25_K1,
  type Bm25Parameters,
  bm25Idf,
  CONTEXT_WEIGHT,
  documentLength,
  documentTerms,
  findDocument,
  kthScore,
  parseTerms,
} from "./bm25.js";
import type { IndexedDocument, SearchNamespace } from "./types.js";

export interface ScopeStats {
  ids: number[];
  documents: number;
  averageLength: number;
}

export interface LexicalResult {
  documentId: number;
  score: number;
}

interface ScopeRow {
  id: number;
  doc_count: number;
  total_length: number;
}

interface DocumentRow {
  id: number;
  scope_id: number;
  terms: string;
  length: number;
}

export class LexicalIndex {
  private readonly statements;
  private readonly postingCache = new Map<number, PostingList>();
  private cachedGeneration = -1;
  private scoreBuffer = new Float64Array(0);
  private marks = new Uint8Array(0);
  private scratch = new Float64Array(0);
  private readonly keyCache = new Map<number, { namespace: SearchNamespace; id: number; scope: string }>();
  private readonly termsCache = new Map<number, Map<string, number>>();
  private readonly dfCache = new Map<string, number>();
  private readonly ownTermsCache = new Map<number, string[]>();
  private inSnapshot = false;

  constructor(
    database: SqliteDatabase,
    private readonly contextWeight = CONTEXT_WEIGHT,
    private readonly bm25: Bm25Parameters = { k1: BM25_K1, b: BM25_B },
  ) {
    const prepare = (sql: string) => database.prepare(sql);
    this.statements = {
      scopeByName: prepare(
        "SELECT id, doc_count, total_length FROM search_scopes WHERE namespace = ? AND scope = ?",
      ),
      insertScope: prepare("INSERT INTO search_scopes (namespace, scope) VALUES (?, ?)"),
      scopeAdd: prepare(
        "UPDATE search_scopes SET doc_count = doc_count + ?, total_length = total_length + ? WHERE id = ?",
      ),
      deleteEmptyScope: prepare("DELETE FROM search_scopes WHERE id = ? AND doc_count = 0"),
      documentByKey: prepare(
        "SELECT id, scope_id, terms, length FROM search_documents WHERE namespace = ? AND doc_id = ?",
      ),
      insertDocument: prepare(
        "INSERT INTO search_documents (namespace, doc_id, scope_id, text, terms, length) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      deleteDocument: prepare("DELETE FROM search_documents WHERE id = ?"),
      termId: prepare("SELECT id FROM search_terms WHERE term = ?").pluck(),
      insertTerm: prepare("INSERT INTO search_terms (term) VALUES (?)"),
      deleteUnusedTerm: prepare(
        "DELETE FROM search_terms WHERE id = ? AND NOT EXISTS (SELECT 1 FROM search_term_scopes WHERE term_id = ?)",
      ),
      insertPosting: prepare(
        "INSERT INTO search_postings (term_id, scope_id, document_id, tf, length) VALUES (?, ?, ?, ?, ?)",
      ),
      deletePosting: prepare(
        "DELETE FROM search_postings WHERE term_id = ? AND scope_id = ? AND document_id = ?",
      ),
      postings: prepare(
        // Ascending document ids: search() binary-searches these lists.
        "SELECT document_id, tf, length FROM search_postings WHERE term_id = ? AND scope_id = ? ORDER BY document_id",
      ).raw(),
      documentsOfScope: prepare("SELECT namespace, doc_id FROM search_documents WHERE scope_id = ?"),
      termsOf: prepare("SELECT terms FROM search_documents WHERE id = ?").pluck(),
      textOf: prepare("SELECT text FROM search_documents WHERE id = ?").pluck(),
      keysOf: prepare(
        `SELECT d.id, d.namespace, d.doc_id, s.scope FROM search_documents d JOIN search_scopes s ON s.id = d.scope_id
         WHERE d.id IN (SELECT value FROM json_each(?))`,
      ),
      scopeDf: prepare("SELECT df FROM search_term_scopes WHERE term_id = ? AND scope_id = ?").pluck(),
      scopeDfAdd: prepare(
        `INSERT INTO search_term_scopes (term_id, scope_id, df) VALUES (?, ?, 1)
         ON CONFLICT (term_id, scope_id) DO UPDATE SET df = df + 1`,
      ),
      scopeDfRemove: prepare("UPDATE search_term_scopes SET df = df - 1 WHERE term_id = ? AND scope_id = ?"),
      deleteUnusedScopeDf: prepare(
        "DELETE FROM search_term_scopes WHERE term_id = ? AND scope_id = ? AND df <= 0",
      ),
      generation: prepare("SELECT value FROM search_meta WHERE key = 'lexical_generation'").pluck(),
      bumpGeneration: prepare("UPDATE search_meta SET value = value + 1 WHERE key = 'lexical_generation'"),
    };
  }

  /** Replaces the document with this (namespace, id). Returns the internal document id. */
  upsert(doc: IndexedDocument): number {
    this.remove(doc.namespace, doc.id);
    const weights = documentTerms(doc, this.contextWeight);
    const length = documentLength(weights);
    const scopeId = this.scopeId(doc.namespace, doc.scope, true);
    const documentId = Number(
      this.statements.insertDocument.run(
        doc.namespace,
        doc.id,
        scopeId,
        serializeText(doc),
        JSON.stringify(Object.fromEntries(weights)),
        length,
      ).lastInsertRowid,
    );
    for (const [term, tf] of weights) {
      const existing = this.statements.termId.get(term) as number | undefined;
      const termId = existing ?? Number(this.statements.insertTerm.run(term).lastInsertRowid);
      this.statements.insertPosting.run(termId, scopeId, documentId, tf, length);
      this.statements.scopeDfAdd.run(termId, scopeId);
    }
    this.statements.scopeAdd.run(1, length, scopeId);
    return documentId;
  }

  /** Removes the document and every posting, term and scope row that only it used. */
  remove(namespace: SearchNamespace, id: number): boolean {
    const row = this.statements.documentByKey.get(namespace, id) as DocumentRow | undefined;
    if (!row) return false;
    const terms = parseTerms(row.terms);
    for (const term of terms.keys()) {
      const termId = this.statements.termId.get(term) as number | undefined;
      if (termId === undefined) {
        throw new Error(
          `search index is inconsistent: term "${term}" of a document is missing from search_terms`,
        );
      }
      this.statements.deletePosting.run(termId, row.scope_id, row.id);
      this.statements.scopeDfRemove.run(termId, row.scope_id);
      this.statements.deleteUnusedScopeDf.run(termId, row.scope_id);
      this.statements.deleteUnusedTerm.run(termId, termId);
    }
    this.statements.deleteDocument.run(row.id);
    this.statements.scopeAdd.run(-1, -row.length, row.scope_id);
    this.statements.deleteEmptyScope.run(row.scope_id);
    return true;
  }

  documentsOfScope(namespace: SearchNamespace, scope: string): { namespace: SearchNamespace; id: number }[] {
    const scopeId = this.scopeId(namespace, scope, false);
    if (scopeId === undefined) return [];
    const rows = this.statements.documentsOfScope.all(scopeId) as {
      namespace: SearchNamespace;
      doc_id: number;
    }[];
    return rows.map((row) => ({ namespace: row.namespace, id: row.doc_id }));
  }

  scopeStats(namespace: SearchNamespace, scopes: readonly string[]): ScopeStats {
    const ids: number[] = [];
    let documents = 0;
    let totalLength = 0;
    for (const scope of new Set(scopes)) {
      const row = this.statements.scopeByName.get(namespace, scope) as ScopeRow | undefined;
      if (!row) continue;
      ids.push(row.id);
      documents += row.doc_count;
      totalLength += row.total_length;
    }
    return { ids, documents, averageLength: documents === 0 ? 0 : totalLength / documents };
  }

  /**
   * BM25 over weighted query terms, best first, at most `limit` results, exact. Posting lists come
   * from typed-array copies cached in this process (see postingsOf). MaxScore pruning: terms are
   * taken rarest first (largest possible contribution); once the terms left could not lift an unseen
   * document into the top `limit`, their long lists are not scanned but binary-searched for the
   * documents still in contention. This keeps a query on "user" (in every memory) cheap.
   */
  search(queryWeights: ReadonlyMap<string, number>, stats: ScopeStats, limit: number): LexicalResult[] {
    if (stats.documents === 0 || queryWeights.size === 0) return [];
    this.checkGeneration();
    const { k1, b } = this.bm25;
    const norm = k1 * (1 - b);
    const perLength = (k1 * b) / stats.averageLength;
    const terms: { factor: number; lists: PostingList[] }[] = [];
    let maxDocument = 0;
    for (const [term, weight] of queryWeights) {
      const termId = this.statements.termId.get(term) as number | undefined;
      if (termId === undefined || weight <= 0) continue;
      const lists = stats.ids.map((scopeId) => this.postingsOf(termId, scopeId));
      const df = lists.reduce((sum, list) => sum + list.documents.length, 0);
      if (df === 0) continue;
      // factor bounds the term's contribution: tf / (tf + positive) < 1.
      terms.push({ factor: weight * bm25Idf(stats.documents, df) * (k1 + 1), lists });
      for (const list of lists) maxDocument = Math.max(maxDocument, list.maxDocument);
    }
    terms.sort((x, y) => y.factor - x.factor);
    // Dense accumulators, reused across queries and zeroed after use (only the touched entries):
    // a Map, or a fresh 800 kB array per query at 1e5 documents, costs more than the arithmetic.
    if (this.scoreBuffer.length <= maxDocument) this.scoreBuffer = new Float64Array(maxDocument + 1 + 1024);
    const scores = this.scoreBuffer;
    const touched: number[] = [];
    let remaining = terms.reduce((sum, term) => sum + term.factor, 0);
    let next = 0;
    for (; next < terms.length; next++) {
      if (
        touched.length >= limit &&
        kthScore(scores, touched, limit, this.scratchFor(touched.length)) > remaining
      )
        break;
      const term = terms[next] as { factor: number; lists: PostingList[] };
      for (const { documents, tfs, lengths } of term.lists) {
        for (let index = 0; index < documents.length; index++) {
          const tf = tfs[index] as number;
          const documentId = documents[index] as number;
          if (scores[documentId] === 0) touched.push(documentId);
          scores[documentId] =
            (scores[documentId] as number) +
            (term.factor * tf) / (tf + norm + perLength * (lengths[index] as number));
        }
      }
      remaining -= term.factor;
    }
    let candidates = touched;
    // Documents that cannot reach the current k-th best score even with every remaining term are
    // dropped. The threshold is computed once: it only rises as terms are added, so a stale one
    // prunes less but never wrongly.
    const threshold =
      next < terms.length && touched.length >= limit
        ? kthScore(scores, touched, limit, this.scratchFor(touched.length))
        : 0;
    for (; next < terms.length; next++) {
      candidates = candidates.filter((documentId) => (scores[documentId] as number) + remaining >= threshold);
      const term = terms[next] as { factor: number; lists: PostingList[] };
      for (const list of term.lists)
        this.addToCandidates(scores, candidates, term.factor, list, norm, perLength);
      remaining -= term.factor;
    }
    const cutoff =
      candidates.length > limit ? kthScore(scores, candidates, limit, this.scratchFor(candidates.length)) : 0;
    const results: LexicalResult[] = [];
    for (const documentId of candidates) {
      const score = scores[documentId] as number;
      if (score >= cutoff) results.push({ documentId, score });
    }
    for (const documentId of touched) scores[documentId] = 0;
    results.sort((x, y) => y.score - x.score || x.documentId - y.documentId);
    return results.slice(0, limit);
  }

  /**
   * Adds the BM25 contributions of extra query terms (absent from the query that produced
   * `results`) to those results, and sorts them again. The first pass's candidate pool is rescored,
   * not the collection: pseudo-relevance feedback reorders what the question found rather than
   * searching again for every term, which would repeat the first pass's work.
   */
  rescore(
    results: readonly LexicalResult[],
    extraWeights: ReadonlyMap<string, number>,
    stats: ScopeStats,
  ): LexicalResult[] {
    if (results.length === 0 || extraWeights.size === 0 || stats.documents === 0) return [...results];
    this.checkGeneration();
    const { k1, b } = this.bm25;
    const norm = k1 * (1 - b);
    const perLength = (k1 * b) / stats.averageLength;
    let maxDocument = 0;
    for (const result of results) maxDocument = Math.max(maxDocument, result.documentId);
    if (this.scoreBuffer.length <= maxDocument) this.scoreBuffer = new Float64Array(maxDocument + 1 + 1024);
    const scores = this.scoreBuffer;
    const candidates = results.map((result) => result.documentId);
    for (const result of results) scores[result.documentId] = result.score;
    for (const [term, weight] of extraWeights) {
      const termId = this.statements.termId.get(term) as number | undefined;
      if (termId === undefined || weight <= 0) continue;
      const df = this.documentFrequency(term, stats.ids);
      if (df === 0) continue;
      const factor = weight * bm25Idf(stats.documents, df) * (k1 + 1);
      const cached = stats.ids.every((scopeId) => this.postingCache.has(postingKey(termId, scopeId)));
      if (cached || df <= candidates.length * LOAD_LIST_BELOW) {
        for (const scopeId of stats.ids) {
          const list = this.postingsOf(termId, scopeId);
          this.addToCandidates(scores, candidates, factor, list, norm, perLength);
        }
        continue;
      }
      // A common word's list is thousands of rows: reading the candidates' stored terms (the same
      // tf and length as their postings) costs less than loading it cold.
      for (const documentId of candidates) {
        const terms = this.termsOf(documentId);
        const tf = terms.get(term);
        if (tf === undefined) continue;
        scores[documentId] =
          (scores[documentId] as number) + (factor * tf) / (tf + norm + perLength * documentLength(terms));
      }
    }
    const rescored = results.map((result) => ({
      documentId: result.documentId,
      score: scores[result.documentId] as number,
    }));
    for (const documentId of candidates) scores[documentId] = 0;
    rescored.sort((x, y) => y.score - x.score || x.documentId - y.documentId);
    return rescored;
  }

  /** Adds one term's contribution to each candidate found in the list (binary search or one pass). */
  private addToCandidates(
    scores: Float64Array,
    candidates: readonly number[],
    factor: number,
    list: PostingList,
    norm: number,
    perLength: number,
  ): void {
    if (candidates.length * BINARY_SEARCH_COST < list.documents.length) {
      for (const documentId of candidates) {
        const index = findDocument(list.documents, documentId);
        if (index >= 0) this.addTerm(scores, documentId, factor, list, index, norm, perLength);
      }
      return;
    }
    const marks = this.markBuffer(scores.length);
    for (const documentId of candidates) marks[documentId] = 1;
    const { documents } = list;
    for (let index = 0; index < documents.length; index++) {
      const documentId = documents[index] as number;
      if (marks[documentId] === 1) this.addTerm(scores, documentId, factor, list, index, norm, perLength);
    }
    for (const documentId of candidates) marks[documentId] = 0;
  }

  private addTerm(
    scores: Float64Array,
    documentId: number,
    factor: number,
    list: PostingList,
    index: number,
    norm: number,
    perLength: number,
  ): void {
    const tf = list.tfs[index] as number;
    scores[documentId] =
      (scores[documentId] as number) +
      (factor * tf) / (tf + norm + perLength * (list.lengths[index] as number));
  }

  private scratchFor(size: number): Float64Array {
    if (this.scratch.length < size) this.scratch = new Float64Array(Math.max(size, 2 * this.scratch.length));
    return this.scratch;
  }

  private markBuffer(size: number): Uint8Array {
    if (this.marks.length < size) this.marks = new Uint8Array(size);
    return this.marks;
  }

  /**
   * The posting list of a term in a scope. Lists are cached as typed arrays because reading
   * thousands of rows through SQLite for a common term costs milliseconds per query; the cache is
   * dropped whenever search_meta's lexical generation moves (any write, by any connection).
   */
  private postingsOf(termId: number, scopeId: number): PostingList {
    const key = postingKey(termId, scopeId);
    const cached = this.postingCache.get(key);
    if (cached) return cached;
    const rows = this.statements.postings.all(termId, scopeId) as [number, number, number][];
    const list: PostingList = {
      maxDocument: 0,
      documents: new Int32Array(rows.length),
      tfs: new Float32Array(rows.length),
      lengths: new Float32Array(rows.length),
    };
    rows.forEach(([documentId, tf, length], index) => {
      list.documents[index] = documentId;
      if (documentId > list.maxDocument) list.maxDocument = documentId;
      list.tfs[index] = tf;
      list.lengths[index] = length;
    });
    this.postingCache.set(key, list);
    return list;
  }

  /**
   * Runs fn (synchronous, so no write can interleave on this connection) with the caches validated
   * once: every accessor otherwise re-reads the generation, a statement per call, which adds up to
   * milliseconds over the hundreds of calls of one search.
   */
  snapshot<T>(fn: () => T): T {
    if (this.inSnapshot) return fn();
    this.checkGeneration();
    this.inSnapshot = true;
    try {
      return fn();
    } finally {
      this.inSnapshot = false;
    }
  }

  private checkGeneration(): void {
    if (this.inSnapshot) return;
    const generation = Number(this.statements.generation.get());
    if (generation !== this.cachedGeneration) {
      this.postingCache.clear();
      this.keyCache.clear();
      this.termsCache.clear();
      this.dfCache.clear();
      this.ownTermsCache.clear();
      this.cachedGeneration = generation;
    }
  }

  /**
   * Must be called once in every transaction that upserts or removes documents, so posting caches
   * (in this and other processes) reload.
   */
  markChanged(): void {
    this.statements.bumpGeneration.run();
  }

  termsOf(documentId: number): Map<string, number> {
    this.checkGeneration();
    const cached = this.termsCache.get(documentId);
    if (cached) return cached;
    const json = this.statements.termsOf.get(documentId) as string | undefined;
    const terms = json === undefined ? new Map<string, number>() : parseTerms(json);
    this.termsCache.set(documentId, terms);
    return terms;
  }

  /** Analyzed terms of the document's own text (not its context), in order; empty if not indexed. */
  ownTermsOf(documentId: number): string[] {
    this.checkGeneration();
    const cached = this.ownTermsCache.get(documentId);
    if (cached) return cached;
    const text = this.statements.textOf.get(documentId) as string | undefined;
    const terms = text === undefined ? [] : analyze(text);
    this.ownTermsCache.set(documentId, terms);
    return terms;
  }

  /** Keys of many documents in one statement; ids not indexed (any more) are absent from the map. */
  keysOf(
    documentIds: readonly number[],
  ): Map<number, { namespace: SearchNamespace; id: number; scope: string }> {
    this.checkGeneration();
    const keys = new Map<number, { namespace: SearchNamespace; id: number; scope: string }>();
    const missing: number[] = [];
    for (const documentId of documentIds) {
      const key = this.keyCache.get(documentId);
      if (key) keys.set(documentId, key);
      else missing.push(documentId);
    }
    if (missing.length === 0) return keys;
    const rows = this.statements.keysOf.all(JSON.stringify(missing)) as {
      id: number;
      namespace: SearchNamespace;
      doc_id: number;
      scope: string;
    }[];
    for (const row of rows) {
      const key = { namespace: row.namespace, id: row.doc_id, scope: row.scope };
      this.keyCache.set(row.id, key);
      keys.set(row.id, key);
    }
    return keys;
  }

  /** Documents of these scopes that contain the term. */
  documentFrequency(term: string, scopeIds: readonly number[]): number {
    this.checkGeneration();
    const key = `${scopeIds.join(",")}\u0000${term}`;
    const cached = this.dfCache.get(key);
    if (cached !== undefined) return cached;
    const termId = this.statements.termId.get(term) as number | undefined;
    const df = termId === undefined ? 0 : this.scopeDf(termId, scopeIds);
    this.dfCache.set(key, df);
    return df;
  }

  private scopeDf(termId: number, scopeIds: readonly number[]): number {
    let df = 0;
    for (const scopeId of scopeIds) df += Number(this.statements.scopeDf.get(termId, scopeId) ?? 0);
    return df;
  }

  private scopeId(namespace: SearchNamespace, scope: string, create: true): number;
  private scopeId(namespace: SearchNamespace, scope: string, create: false): number | undefined;
  private scopeId(namespace: SearchNamespace, scope: string, create: boolean): number | undefined {
    const row = this.statements.scopeByName.get(namespace, scope) as ScopeRow | undefined;
    if (row) return row.id;
    if (!create) return undefined;
    return Number(this.statements.insertScope.run(namespace, scope).lastInsertRowid);
  }
}

/** The text kept for embedding: the document's own text; context is for lexical matching only. */
function serializeText(doc: IndexedDocument): string {
  return doc.text;
}

function postingKey(termId: number, scopeId: number): number {
  return termId * 65_536 + scopeId;
}

/** rescore() loads an uncached posting list only when it is at most this many times the pool. */
const LOAD_LIST_BELOW = 4;

/** Roughly how many sequential list entries one binary search costs. */
const BINARY_SEARCH_COST = 24;

interface PostingList {
  maxDocument: number;
  documents: Int32Array;
  tfs: Float32Array;
  lengths: Float32Array;
}
