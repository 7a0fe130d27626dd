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
      insertTerm: prepare("INSERT INTO search_terms (term, df) VALUES (?, 1)"),
      termDfAdd: prepare("UPDATE search_terms SET df = df + ? WHERE id = ?"),
      deleteUnusedTerm: prepare("DELETE FROM search_terms WHERE id = ? AND df <= 0"),
      insertPosting: prepare(
        "INSERT INTO search_postings (term_id, scope_id, document_id, tf, length) VALUES (?, ?, ?, ?, ?)",
      ),
      deletePosting: prepare(
        "DELETE FROM search_postings WHERE term_id = ? AND scope_id = ? AND document_id = ?",
      ),
      postings: prepare(
        "SELECT document_id, tf, length FROM search_postings WHERE term_id = ? AND scope_id = ?",
      ).raw(),
      documentsOfScope: prepare("SELECT namespace, doc_id FROM search_documents WHERE scope_id = ?"),
      termsOf: prepare("SELECT terms FROM search_documents WHERE id = ?").pluck(),
      keyOf: prepare(
        "SELECT d.namespace, d.doc_id, s.scope FROM search_documents d JOIN search_scopes s ON s.id = d.scope_id WHERE d.id = ?",
      ),
      scopeDf: prepare("SELECT df FROM search_term_scopes WHERE term_id = ? AND scope_id = ?").pluck(),
      scopeDfAdd: prepare(
        `INSERT INTO search_term_scopes (term_id, scope_id, df) VALUES (?, ?, 1)
         ON CONFLICT (term_id, scope_id) DO UPDATE SET df = df + 1`,
      ),
      scopeDfRemove: prepare("UPDATE search_term_scopes SET df = df - 1 WHERE term_id = ? AND scope_id = ?"),
      deleteUnusedScopeDf: prepare("DELETE FROM search_term_scopes WHERE term_id = ? AND scope_id = ? AND df <= 0"),
      posting: prepare("SELECT tf, length FROM search_postings WHERE term_id = ? AND scope_id = ? AND document_id = ?").raw(),
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
      let termId: number;
      if (existing === undefined) {
        termId = Number(this.statements.insertTerm.run(term).lastInsertRowid);
      } else {
        termId = existing;
        this.statements.termDfAdd.run(1, termId);
      }
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
      this.statements.termDfAdd.run(-1, termId);
      this.statements.deleteUnusedTerm.run(termId);
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
   * BM25 over weighted query terms, best first, at most `limit` results. Exact, with MaxScore
   * pruning: terms are read in decreasing order of their largest possible contribution, and once
   * the terms left cannot lift an unseen document into the top `limit`, their (long, low-idf)
   * posting lists are not scanned; they are looked up only for documents still in contention.
   */
  search(queryWeights: ReadonlyMap<string, number>, stats: ScopeStats, limit: number): LexicalResult[] {
    if (stats.documents === 0 || queryWeights.size === 0) return [];
    const { k1, b } = this.bm25;
    const norm = k1 * (1 - b);
    const perLength = (k1 * b) / stats.averageLength;
    const terms: QueryTerm[] = [];
    for (const [term, weight] of queryWeights) {
      const termId = this.statements.termId.get(term) as number | undefined;
      if (termId === undefined || weight <= 0) continue;
      const df = this.scopeDf(termId, stats.ids);
      if (df === 0) continue;
      terms.push({ termId, df, factor: weight * bm25Idf(stats.documents, df) * (k1 + 1) });
    }
    // factor is also the upper bound of a term's contribution (tf / (tf + ...) < 1).
    terms.sort((a, b) => b.factor - a.factor || a.termId - b.termId);
    let remaining = terms.reduce((sum, term) => sum + term.factor, 0);
    const scores = new Map<number, number>();
    const scopeOf = new Map<number, number>();
    let next = 0;
    for (; next < terms.length; next++) {
      if (next > 0 && scores.size >= limit && kthLargest(scores, limit) > remaining) break;
      const term = terms[next] as QueryTerm;
      for (const scopeId of stats.ids) {
        const rows = this.statements.postings.all(term.termId, scopeId) as [number, number, number][];
        for (const [documentId, tf, length] of rows) {
          scores.set(documentId, (scores.get(documentId) ?? 0) + (term.factor * tf) / (tf + norm + perLength * length));
          scopeOf.set(documentId, scopeId);
        }
      }
      remaining -= term.factor;
    }
    if (next < terms.length) {
      const threshold = kthLargest(scores, limit);
      const contenders = [...scores].filter(([, score]) => score + remaining >= threshold).map(([id]) => id);
      const contending = new Set(contenders);
      for (; next < terms.length; next++) {
        const term = terms[next] as QueryTerm;
        // Reading a row of a scan costs far less than a point lookup: scan short lists.
        if (term.df <= contenders.length * SCAN_RATIO) {
          for (const scopeId of stats.ids) {
            const rows = this.statements.postings.all(term.termId, scopeId) as [number, number, number][];
            for (const [documentId, tf, length] of rows) {
              if (!contending.has(documentId)) continue;
              const contribution = (term.factor * tf) / (tf + norm + perLength * length);
              scores.set(documentId, (scores.get(documentId) ?? 0) + contribution);
            }
          }
          continue;
        }
        for (const documentId of contenders) {
          const row = this.statements.posting.get(term.termId, scopeOf.get(documentId), documentId) as
            | [number, number]
            | undefined;
          if (!row) continue;
          const [tf, length] = row;
          scores.set(documentId, (scores.get(documentId) ?? 0) + (term.factor * tf) / (tf + norm + perLength * length));
        }
      }
    }
    return topScores(scores, limit);
  }

  termsOf(documentId: number): Map<string, number> {
    const json = this.statements.termsOf.get(documentId) as string | undefined;
    return json === undefined ? new Map() : parseTerms(json);
  }

  keyOf(documentId: number): { namespace: SearchNamespace; id: number; scope: string } | undefined {
    const row = this.statements.keyOf.get(documentId) as
      | { namespace: SearchNamespace; doc_id: number; scope: string }
      | undefined;
    return row ? { namespace: row.namespace, id: row.doc_id, scope: row.scope } : undefined;
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

interface QueryTerm {
  termId: number;
  df: number;
  factor: number;
}

const SCAN_RATIO = 16;

/** The k-th largest score (k >= 1), or 0 when there are fewer than k. Quickselect, O(n). */
function kthLargest(scores: ReadonlyMap<number, number>, k: number): number {
  if (scores.size < k) return 0;
  const values = Float64Array.from(scores.values());
  const target = values.length - k;
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1] ?? 0;
    let left = low;
    let right = high;
    while (left <= right) {
      while ((values[left] ?? 0) < pivot) left++;
      while ((values[right] ?? 0) > pivot) right--;
      if (left <= right) {
        const swap = values[left] ?? 0;
        values[left] = values[right] ?? 0;
        values[right] = swap;
        left++;
        right--;
      }
    }
    if (target <= right) high = right;
    else if (target >= left) low = left;
    else break;
  }
  return values[target] ?? 0;
}

export function topScores(scores: ReadonlyMap<number, number>, limit: number): LexicalResult[] {
  const results: LexicalResult[] = [];
  for (const [documentId, score] of scores) results.push({ documentId, score });
  // Ties break on the document id so results are deterministic.
  results.sort((a, b) => b.score - a.score || a.documentId - b.documentId);
  return results.slice(0, limit);
}
