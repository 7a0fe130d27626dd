import type { SqliteDatabase } from "../../storage/database.js";
import { analyze, termCounts } from "../text/analyze.js";
import type { IndexedDocument, SearchNamespace } from "./types.js";

/**
 * BM25 parameters. k1 = 1.2 is the textbook default (Robertson & Zaragoza). b = 0.5 instead of 0.75:
 * memories and conversation turns are short, and among short texts length mostly reflects wording
 * (greetings, filler) rather than topic, so length is normalized more gently. Chosen once for all
 * data (on the LoCoMo dev split b 0.75 -> 0.5 moved nDCG@10 by +0.01), never per query or corpus.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.5;
/** A context term counts this much of a term in the document's own text. */
export const CONTEXT_WEIGHT = 0.35;

export interface Bm25Parameters {
  k1: number;
  b: number;
}

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

/** Weighted term frequencies of a document: its own text counts 1, its context CONTEXT_WEIGHT. */
export function documentTerms(doc: IndexedDocument, contextWeight = CONTEXT_WEIGHT): Map<string, number> {
  const weights = termCounts(analyze(doc.text));
  if (doc.context !== undefined && doc.context !== "") {
    for (const [term, count] of termCounts(analyze(doc.context))) {
      weights.set(term, (weights.get(term) ?? 0) + contextWeight * count);
    }
  }
  return weights;
}

export function bm25Idf(documents: number, df: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}

export class LexicalIndex {
  private readonly statements;
  private readonly postingCache = new Map<number, PostingList>();
  private cachedGeneration = -1;
  private scoreBuffer = new Float64Array(0);
  private marks = new Uint8Array(0);
  private readonly keyCache = new Map<number, { namespace: SearchNamespace; id: number; scope: string }>();
  private readonly termsCache = new Map<number, Map<string, number>>();

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
      keysOf: prepare(
        `SELECT d.id, d.namespace, d.doc_id, s.scope FROM search_documents d JOIN search_scopes s ON s.id = d.scope_id
         WHERE d.id IN (SELECT value FROM json_each(?))`,
      ),
      keyOf: prepare(
        "SELECT d.namespace, d.doc_id, s.scope FROM search_documents d JOIN search_scopes s ON s.id = d.scope_id WHERE d.id = ?",
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
    let length = 0;
    for (const tf of weights.values()) length += tf;
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
      if (touched.length >= limit && kthScore(scores, touched, limit) > remaining) break;
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
    for (; next < terms.length; next++) {
      // Documents that cannot reach the k-th best score even with every remaining term are dropped.
      // The top k are always among the candidates, so the k-th best of the candidates is the k-th best.
      const threshold = candidates.length >= limit ? kthScore(scores, candidates, limit) : 0;
      candidates = candidates.filter((documentId) => (scores[documentId] as number) + remaining >= threshold);
      const term = terms[next] as { factor: number; lists: PostingList[] };
      for (const list of term.lists) {
        // Binary search per candidate, or one pass over the list when that is cheaper.
        if (candidates.length * BINARY_SEARCH_COST < list.documents.length) {
          for (const documentId of candidates) {
            const index = findDocument(list.documents, documentId);
            if (index >= 0) this.addTerm(scores, documentId, term.factor, list, index, norm, perLength);
          }
        } else {
          const marks = this.markBuffer(scores.length);
          for (const documentId of candidates) marks[documentId] = 1;
          const { documents } = list;
          for (let index = 0; index < documents.length; index++) {
            const documentId = documents[index] as number;
            if (marks[documentId] === 1)
              this.addTerm(scores, documentId, term.factor, list, index, norm, perLength);
          }
          for (const documentId of candidates) marks[documentId] = 0;
        }
      }
      remaining -= term.factor;
    }
    const threshold = candidates.length > limit ? kthScore(scores, candidates, limit) : 0;
    const results: LexicalResult[] = [];
    for (const documentId of candidates) {
      const score = scores[documentId] as number;
      if (score >= threshold) results.push({ documentId, score });
    }
    for (const documentId of touched) scores[documentId] = 0;
    results.sort((x, y) => y.score - x.score || x.documentId - y.documentId);
    return results.slice(0, limit);
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
    const key = termId * 65_536 + scopeId;
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

  private checkGeneration(): void {
    const generation = Number(this.statements.generation.get());
    if (generation !== this.cachedGeneration) {
      this.postingCache.clear();
      this.keyCache.clear();
      this.termsCache.clear();
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

  keyOf(documentId: number): { namespace: SearchNamespace; id: number; scope: string } | undefined {
    const row = this.statements.keyOf.get(documentId) as
      | { namespace: SearchNamespace; doc_id: number; scope: string }
      | undefined;
    return row ? { namespace: row.namespace, id: row.doc_id, scope: row.scope } : undefined;
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
    const termId = this.statements.termId.get(term) as number | undefined;
    if (termId === undefined) return 0;
    return this.scopeDf(termId, scopeIds);
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

function parseTerms(json: string): Map<string, number> {
  const parsed: unknown = JSON.parse(json);
  if (typeof parsed !== "object" || parsed === null) throw new Error("search index: malformed terms column");
  const terms = new Map<string, number>();
  for (const [term, tf] of Object.entries(parsed)) {
    if (typeof tf !== "number") throw new Error(`search index: malformed frequency for term "${term}"`);
    terms.set(term, tf);
  }
  return terms;
}

/** Roughly how many sequential list entries one binary search costs. */
const BINARY_SEARCH_COST = 24;

interface PostingList {
  maxDocument: number;
  documents: Int32Array;
  tfs: Float32Array;
  lengths: Float32Array;
}

/** The k-th largest score among the given documents (k <= ids.length). Quickselect, O(n). */
function kthScore(scores: Float64Array, ids: readonly number[], k: number): number {
  const values = new Float64Array(ids.length);
  for (let index = 0; index < ids.length; index++) values[index] = scores[ids[index] as number] as number;
  const target = values.length - k;
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1] as number;
    let left = low;
    let right = high;
    while (left <= right) {
      while ((values[left] as number) < pivot) left++;
      while ((values[right] as number) > pivot) right--;
      if (left <= right) {
        const swap = values[left] as number;
        values[left] = values[right] as number;
        values[right] = swap;
        left++;
        right--;
      }
    }
    if (target <= right) high = right;
    else if (target >= left) low = left;
    else break;
  }
  return values[target] as number;
}

/** Index of documentId in an ascending list, or -1. */
function findDocument(documents: Int32Array, documentId: number): number {
  let low = 0;
  let high = documents.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = documents[middle] as number;
    if (value === documentId) return middle;
    if (value < documentId) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

export function topScores(scores: ReadonlyMap<number, number>, limit: number): LexicalResult[] {
  const results: LexicalResult[] = [];
  for (const [documentId, score] of scores) results.push({ documentId, score });
  // Ties break on the document id so results are deterministic.
  results.sort((a, b) => b.score - a.score || a.documentId - b.documentId);
  return results.slice(0, limit);
}
