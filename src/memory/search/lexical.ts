import type { SqliteDatabase } from "../../storage/database.js";
import { analyze } from "../text/analyze.js";
import {
  CONTEXT_CAP,
  CONTEXT_WEIGHT,
  documentLength,
  documentTerms,
  isFieldTerm,
  ownTerms,
  SPEAKER_WORDS,
} from "./bm25.js";
import { DocumentFrequencies } from "./frequencies.js";
import { ftsText, matchExpression, scopeToken } from "./fts-terms.js";
import { encodeTerms, parseTerms, StoredTermWeights } from "./stored-terms.js";
import type { IndexedDocument, SearchNamespace } from "./types.js";

/**
 * The lexical index on SQLite. Per document: a `search_docs` row (text, weighted terms (stored-terms.ts),
 * length, when it happened) and a row of the contentless FTS5 table `search_fts` (same rowid) holding
 * the analyzer's terms: `body` (own text), `extra` (context terms), `filter` (its scope's token).
 * Per scope: document count and total length (`search_scopes`), and documents per term
 * (`search_term_df`), so BM25 statistics cover exactly the scopes a search may see. Everything is
 * written in the caller's transaction. `secure-delete` is on (migration 011), and compact() rewrites
 * the FTS5 segments so no deleted term survives in a page (forget calls it).
 */
export interface ScopeStats {
  ids: number[];
  documents: number;
  averageLength: number;
}

export interface StoredTerms {
  terms: StoredTermWeights;
  length: number;
}

interface Details {
  key: DocumentKey;
  stored: StoredTerms;
  occurredAt: string | null;
}

export interface DocumentKey {
  namespace: SearchNamespace;
  id: number;
  scope: string;
}

/** FTS5 column weights of the first stage: context terms count less than the document's own. */
const FIRST_STAGE_RANK = `bm25(1, ${CONTEXT_WEIGHT}, 0)`;

export class LexicalIndex {
  private readonly statements;
  /** What a search reads of its candidates, one entry per document (one Map, not three). */
  private readonly detailsCache = new Map<number, Details>();
  private readonly frequencies: DocumentFrequencies;
  private readonly scopeNames = new Map<number, string>();

  constructor(
    private readonly database: SqliteDatabase,
    private readonly contextWeight = CONTEXT_WEIGHT,
    private readonly timeWords = true,
    private readonly contextCap = CONTEXT_CAP,
    private readonly speakerWords = SPEAKER_WORDS,
  ) {
    this.frequencies = new DocumentFrequencies(database);
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
      byKey: prepare(
        "SELECT id, scope_id, terms, length FROM search_docs WHERE namespace = ? AND doc_id = ?",
      ),
      insertDoc: prepare(
        `INSERT INTO search_docs (namespace, doc_id, scope_id, text, terms, length, occurred_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      deleteDoc: prepare("DELETE FROM search_docs WHERE id = ?"),
      insertFts: prepare("INSERT INTO search_fts (rowid, body, extra, filter) VALUES (?, ?, ?, ?)"),
      deleteFts: prepare("DELETE FROM search_fts WHERE rowid = ?"),
      dfAdd: prepare(
        `INSERT INTO search_term_df (scope_id, term, df) VALUES (?, ?, 1)
         ON CONFLICT (scope_id, term) DO UPDATE SET df = df + 1`,
      ),
      dfRemove: prepare("UPDATE search_term_df SET df = df - 1 WHERE scope_id = ? AND term = ?"),
      dfDeleteUnused: prepare("DELETE FROM search_term_df WHERE scope_id = ? AND term = ? AND df <= 0"),
      ofScope: prepare("SELECT namespace, doc_id FROM search_docs WHERE scope_id = ?"),
      // Rows as arrays (raw), the scope as its id and the namespace as a number: 200 candidates
      // per search, and every object and string a row brings is garbage a moment later.
      details: prepare(
        `SELECT d.id, CASE d.namespace WHEN 'memory' THEN 0 WHEN 'episode' THEN 1 END, d.doc_id, d.scope_id, d.terms, d.length, d.occurred_at
         FROM search_docs d WHERE d.id IN (SELECT value FROM json_each(?))`,
      ).raw(),
      scopeName: prepare("SELECT scope FROM search_scopes WHERE id = ?").pluck(),
      textOf: prepare("SELECT text FROM search_docs WHERE id = ?").pluck(),
      indexed: prepare("SELECT id FROM search_docs WHERE id IN (SELECT value FROM json_each(?))").pluck(),
      page: prepare(
        "SELECT id, scope_id, text, terms, occurred_at FROM search_docs WHERE id > ? ORDER BY id LIMIT 500",
      ),
      // When the caller gives no time, the owning row's: a turn's time, a memory's validity start.
      ownerTime: prepare(
        `SELECT CASE @namespace
           WHEN 'episode' THEN (SELECT created_at FROM episodes WHERE id = @id)
           WHEN 'memory' THEN (SELECT COALESCE(valid_from, created_at) FROM memories WHERE id = @id)
         END`,
      ).pluck(),
      totalDocuments: prepare("SELECT SUM(doc_count) FROM search_scopes").pluck(),
      scopeCount: prepare("SELECT doc_count FROM search_scopes WHERE id = ?").pluck(),
      rebuildFlag: prepare("SELECT value FROM search_state WHERE key = 'fts_rebuild'").pluck(),
      clearRebuild: prepare("DELETE FROM search_state WHERE key = 'fts_rebuild'"),
      // ORDER BY rank lets FTS5 score and sort inside the virtual table; `rank MATCH` sets the
      // column weights for this query only.
      candidates: prepare(
        `SELECT rowid FROM search_fts WHERE search_fts MATCH ? AND rank MATCH ? ORDER BY rank LIMIT ?`,
      ).pluck(),
      newest: prepare(
        "SELECT rowid FROM search_fts WHERE search_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
      ).pluck(),
      // Unranked: no bm25(), so no pass over each word's whole doclist for its idf. FTS5 reads its
      // doclists in rowid order, so ORDER BY rowid costs no sort (query plan: no temp b-tree).
      matching: prepare(
        "SELECT rowid FROM search_fts WHERE search_fts MATCH ? ORDER BY rowid LIMIT ?",
      ).pluck(),
    };
    this.rebuildIfMigrated();
  }

  /** Replaces the document with this (namespace, id). Returns the internal document id. */
  upsert(given: IndexedDocument): number {
    this.remove(given.namespace, given.id);
    const occurredAt =
      given.occurredAt ??
      (this.statements.ownerTime.get({ namespace: given.namespace, id: given.id }) as string | null) ??
      undefined;
    const doc: IndexedDocument = occurredAt === undefined ? given : { ...given, occurredAt };
    const weights = documentTerms(
      doc,
      this.contextWeight,
      this.timeWords,
      this.contextCap,
      this.speakerWords,
    );
    const length = documentLength(weights);
    const scopeId = this.scopeId(doc.namespace, doc.scope, true);
    const documentId = Number(
      this.statements.insertDoc.run(
        doc.namespace,
        doc.id,
        scopeId,
        doc.text,
        encodeTerms(weights),
        length,
        doc.occurredAt ?? null,
      ).lastInsertRowid,
    );
    this.writeFts(documentId, scopeId, ownTerms(doc, this.timeWords), weights);
    for (const term of weights.keys()) this.statements.dfAdd.run(scopeId, term);
    this.statements.scopeAdd.run(1, length, scopeId);
    this.clearCaches();
    return documentId;
  }

  /** Removes the document, its FTS5 row and every df row only it used. Its internal id, or undefined. */
  remove(namespace: SearchNamespace, id: number): number | undefined {
    const row = this.statements.byKey.get(namespace, id) as
      | { id: number; scope_id: number; terms: string; length: number }
      | undefined;
    if (!row) return undefined;
    for (const term of parseTerms(row.terms).keys()) {
      this.statements.dfRemove.run(row.scope_id, term);
      this.statements.dfDeleteUnused.run(row.scope_id, term);
    }
    this.statements.deleteFts.run(row.id);
    this.statements.deleteDoc.run(row.id);
    this.statements.scopeAdd.run(-1, -row.length, row.scope_id);
    this.statements.deleteEmptyScope.run(row.scope_id);
    this.clearCaches();
    return row.id;
  }

  /**
   * Rewrites the FTS5 index into one segment. secure-delete removes a deleted document's entries
   * from the segment leaves, but a term can still stand as a separator key of the segment index
   * (`search_fts_idx`); the rewrite leaves out every term no document uses.
   */
  compact(): void {
    this.database.exec("INSERT INTO search_fts (search_fts) VALUES ('optimize')");
  }

  documentsOfScope(namespace: SearchNamespace, scope: string): { namespace: SearchNamespace; id: number }[] {
    const scopeId = this.scopeId(namespace, scope, false);
    if (scopeId === undefined) return [];
    const rows = this.statements.ofScope.all(scopeId) as { namespace: SearchNamespace; doc_id: number }[];
    return rows.map((row) => ({ namespace: row.namespace, id: row.doc_id }));
  }

  scopeStats(namespace: SearchNamespace, scopes: readonly string[]): ScopeStats {
    const ids: number[] = [];
    let documents = 0;
    let totalLength = 0;
    for (const scope of new Set(scopes)) {
      const row = this.statements.scopeByName.get(namespace, scope) as
        | { id: number; doc_count: number; total_length: number }
        | undefined;
      if (!row) continue;
      ids.push(row.id);
      documents += row.doc_count;
      totalLength += row.total_length;
    }
    return { ids, documents, averageLength: documents === 0 ? 0 : totalLength / documents };
  }

  /**
   * The scopes a first-stage query must filter by: none when the scopes searched hold every document
   * (one person's install), where filtering would intersect with a list of the whole index for nothing.
   */
  scopeFilter(scopeIds: readonly number[]): readonly number[] {
    const total = Number(this.statements.totalDocuments.get() ?? 0);
    let searched = 0;
    for (const scopeId of scopeIds) searched += Number(this.statements.scopeCount.get(scopeId) ?? 0);
    return searched === total ? [] : scopeIds;
  }

  /**
   * First stage: up to `limit` documents of these scopes (`scopeFilter()`'s answer) containing any of
   * the terms (`all`: every one of them), in own text or context. Order "rank": FTS5's bm25() with
   * column weights, which costs a score for every matching document; "newest": the latest documents,
   * which costs only the rows returned. Unweighted: the second stage (exact BM25 with query-term
   * weights, search-index.ts) orders them.
   *
   * `all` with order "rank": when every matching document fits in `limit`, they are returned as a
   * set, in rowid order, from an unranked query. The ranked one would return the same documents,
   * but FTS5's bm25() first counts the rows of every query word for its idf, a pass over each
   * word's whole doclist: at 1,000,000 memories "dog" AND "adopt" AND a rare name matched 5
   * documents and cost 8-12 ms, against 0.3 ms unranked. Who asks for `all` (the first stage's
   * conjunction ladder) takes the result as a set whenever it fits: each step's words are a subset
   * of the previous step's, so what it already holds is inside the new result.
   *
   * `whole` (at least `limit`; `all` only): the same when every match fits in `whole`, so the answer
   * may hold more than `limit` documents — a superset of the ranked `limit`, for a second stage that
   * scores every candidate exactly. The cost bound: reading up to `whole` rowids and their stored terms
   * is cheaper than bm25()'s idf pass over each word's whole doclist (at 1,000,000 memories 222
   * matches of "name" AND "dog" AND "adopt" AND a name: 6-12 ms ranked, 1 ms unranked).
   *
   * `ends` (`all` only): what a conjunction with more than `whole` matches gives. Without it,
   * FTS5's bm25() top `limit`, which scores every match after its idf pass over each word's whole
   * doclist (at 1,000,000 memories "typescript" AND "us", 8,543 matches: 11-15 ms; a rowid bound
   * on the ranked statement does not shorten it, measured). With it: its first `ends` and its last
   * `ends` matches in rowid order (the oldest and the newest), unranked, for a caller whose exact
   * second stage scores every candidate: two reads of `ends` rowids (0.2-0.3 ms each there).
   */
  candidates(
    terms: readonly string[],
    scopeFilter: readonly number[],
    limit: number,
    options: { all?: boolean; order?: "rank" | "newest"; whole?: number; ends?: number } = {},
  ): number[] {
    const expression = matchExpression(terms, scopeFilter, options.all ?? false);
    if (expression === undefined) return [];
    if (options.order === "newest") return this.statements.newest.all(expression, limit) as number[];
    if (options.all === true) {
      const whole = Math.max(limit, options.whole ?? limit);
      const ends = options.ends ?? 0;
      const every = this.statements.matching.all(expression, Math.max(whole, ends) + 1) as number[];
      if (every.length <= whole) return every;
      if (ends > 0) {
        const taken = new Set(every.slice(0, ends));
        for (const documentId of this.statements.newest.all(expression, ends) as number[])
          taken.add(documentId);
        return [...taken];
      }
    }
    return this.statements.candidates.all(expression, FIRST_STAGE_RANK, limit) as number[];
  }

  /** Stored weighted terms of documents (cached until the next write through this object). */
  termsOf(documentIds: readonly number[]): Map<number, StoredTerms> {
    this.loadDetails(documentIds);
    const result = new Map<number, StoredTerms>();
    for (const documentId of documentIds) {
      const stored = this.detailsCache.get(documentId)?.stored;
      if (stored) result.set(documentId, stored);
    }
    return result;
  }

  /** Which of these internal ids are indexed now (read from the table, never from a cache). */
  indexed(documentIds: readonly number[]): Set<number> {
    if (documentIds.length === 0) return new Set();
    return new Set(this.statements.indexed.all(JSON.stringify(documentIds)) as number[]);
  }

  /** Analyzed terms of the document's own text (not its context), in order; empty if not indexed. */
  ownTermsOf(documentId: number): string[] {
    const text = this.statements.textOf.get(documentId) as string | undefined;
    return text === undefined ? [] : analyze(text);
  }

  /** Keys of many documents; ids not indexed (any more) are absent from the map. */
  keysOf(documentIds: readonly number[]): Map<number, DocumentKey> {
    this.loadDetails(documentIds);
    const keys = new Map<number, DocumentKey>();
    for (const documentId of documentIds) {
      const key = this.detailsCache.get(documentId)?.key;
      if (key) keys.set(documentId, key);
    }
    return keys;
  }

  /** ISO time the document happened at, or null. */
  occurredAtOf(documentIds: readonly number[]): Map<number, string | null> {
    this.loadDetails(documentIds);
    const times = new Map<number, string | null>();
    for (const documentId of documentIds)
      times.set(documentId, this.detailsCache.get(documentId)?.occurredAt ?? null);
    return times;
  }

  /** Documents of these scopes that contain the term (in any field). */
  documentFrequency(term: string, scopeIds: readonly number[]): number {
    return this.frequencies.get(term, scopeIds);
  }

  /** Loads the document frequencies of many terms in one statement (DocumentFrequencies.prefetch). */
  prefetchFrequencies(terms: Iterable<string>, scopeIds: readonly number[]): void {
    this.frequencies.prefetch(terms, scopeIds);
  }

  /**
   * Caches live for one search at most: another connection (the daemon and a CLI command) may
   * write between two searches, and reading a few hundred rows again costs far less than being wrong.
   */
  clearCaches(): void {
    this.detailsCache.clear();
    this.frequencies.clear();
    this.scopeNames.clear();
  }

  private loadDetails(documentIds: readonly number[]): void {
    const missing = documentIds.filter((documentId) => !this.detailsCache.has(documentId));
    if (missing.length === 0) return;
    const rows = this.statements.details.all(JSON.stringify(missing)) as [
      id: number,
      episode: number | null,
      docId: number,
      scopeId: number,
      terms: string,
      length: number,
      occurredAt: string | null,
    ][];
    for (const [id, episode, docId, scopeId, terms, length, occurredAt] of rows) {
      if (episode === null) throw new Error(`search index: document ${id} has an unknown namespace`);
      const namespace: SearchNamespace = episode === 1 ? "episode" : "memory";
      this.detailsCache.set(id, {
        key: { namespace, id: docId, scope: this.scopeNameOf(scopeId) },
        stored: { terms: new StoredTermWeights(terms), length },
        occurredAt,
      });
    }
  }

  /** A scope's name by id, read once per search (a search sees a few scopes, its rows thousands). */
  private scopeNameOf(scopeId: number): string {
    let name = this.scopeNames.get(scopeId);
    if (name === undefined) {
      name = this.statements.scopeName.get(scopeId) as string | undefined;
      if (name === undefined) throw new Error(`search index: document of missing scope ${scopeId}`);
      this.scopeNames.set(scopeId, name);
    }
    return name;
  }

  private writeFts(
    documentId: number,
    scopeId: number,
    body: readonly string[],
    weights: ReadonlyMap<string, number>,
  ) {
    const own = new Set(body);
    // Context terms: those of the stored weights that the text itself does not have (field terms
    // such as the speaker are never matched by a query's words).
    const extra = [...weights.keys()].filter((term) => !own.has(term) && !isFieldTerm(term));
    this.statements.insertFts.run(documentId, ftsText(body), ftsText(extra), scopeToken(scopeId));
  }

  /**
   * After migration 011 moved the old index's documents over, their FTS5 rows are written here,
   * once, in one transaction, from the stored text and terms (the analyzer lives above storage).
   */
  private rebuildIfMigrated(): void {
    if (this.statements.rebuildFlag.get() === undefined) return;
    this.database.transaction(() => {
      if (this.statements.rebuildFlag.get() === undefined) return;
      this.database.exec("DELETE FROM search_fts");
      let after = 0;
      for (;;) {
        // Paged, not iterated: better-sqlite3 allows no write while a statement is being iterated.
        const rows = this.statements.page.all(after) as {
          id: number;
          scope_id: number;
          text: string;
          terms: string;
          occurred_at: string | null;
        }[];
        if (rows.length === 0) break;
        for (const row of rows) {
          // The migrated terms are kept as they were (the old engine had no time words): the body
          // column holds the text's words, and what the stored terms add goes to extra.
          this.writeFts(row.id, row.scope_id, analyze(row.text), parseTerms(row.terms));
          after = row.id;
        }
      }
      this.statements.clearRebuild.run();
    })();
  }

  private scopeId(namespace: SearchNamespace, scope: string, create: true): number;
  private scopeId(namespace: SearchNamespace, scope: string, create: false): number | undefined;
  private scopeId(namespace: SearchNamespace, scope: string, create: boolean): number | undefined {
    const row = this.statements.scopeByName.get(namespace, scope) as { id: number } | undefined;
    if (row) return row.id;
    if (!create) return undefined;
    return Number(this.statements.insertScope.run(namespace, scope).lastInsertRowid);
  }
}
