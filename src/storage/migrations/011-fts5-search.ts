import type { Migration } from "./types.js";

/**
 * The search index moves to SQLite FTS5 (words) and sqlite-vec (vectors), replacing the hand-written
 * posting tables of migration 002.
 *
 * Every indexed document moves to `search_docs` with the same internal id, namespace, document id,
 * scope, text, weighted terms and length, so nothing is re-analyzed to keep what was found before;
 * the per-scope document frequencies move to `search_term_df` (keyed by the term itself, so the
 * dictionary table goes). An episode's turn time and a memory's validity start (else its creation)
 * become `occurred_at`. The FTS5 rows are written by the search engine on its first start
 * (`search_state.fts_rebuild`), in one transaction, because the analyzer that spells FTS5 tokens
 * lives above the storage layer. Old vectors are dropped: they are derived data in a JavaScript
 * format; the embedder recomputes them in the background (embedPending) into sqlite-vec.
 */
export const fts5SearchMigration: Migration = {
  version: 11,
  name: "fts5-search",
  up(database) {
    database.exec(`
      CREATE TABLE search_docs (
        id INTEGER PRIMARY KEY,
        namespace TEXT NOT NULL,
        doc_id INTEGER NOT NULL,
        scope_id INTEGER NOT NULL REFERENCES search_scopes(id),
        text TEXT NOT NULL,
        -- JSON {term: weighted tf} over text, context and speaker field: exact BM25 of the pool,
        -- feedback terms, and the document frequencies to decrement when it is removed.
        terms TEXT NOT NULL,
        length REAL NOT NULL,
        -- ISO-8601: when it happened (an episode's turn, a memory's validity start).
        occurred_at TEXT,
        -- The embedder whose vector this document has in the sqlite-vec table, NULL when none.
        vector_model TEXT,
        UNIQUE (namespace, doc_id)
      );
      CREATE INDEX search_docs_scope ON search_docs(scope_id);
      CREATE INDEX search_docs_unembedded ON search_docs(id) WHERE vector_model IS NULL;

      INSERT INTO search_docs (id, namespace, doc_id, scope_id, text, terms, length, occurred_at)
        SELECT d.id, d.namespace, d.doc_id, d.scope_id, d.text, d.terms, d.length,
          CASE d.namespace
            WHEN 'episode' THEN (SELECT e.created_at FROM episodes e WHERE e.id = d.doc_id)
            WHEN 'memory' THEN (SELECT COALESCE(m.valid_from, m.created_at) FROM memories m WHERE m.id = d.doc_id)
          END
        FROM search_documents d;

      -- Documents per (scope, term): BM25 idf over exactly the scopes searched. A row whose df
      -- reaches 0 is deleted (a forgotten memory's words must not stay behind).
      CREATE TABLE search_term_df (
        scope_id INTEGER NOT NULL,
        term TEXT NOT NULL,
        df INTEGER NOT NULL,
        PRIMARY KEY (scope_id, term)
      ) WITHOUT ROWID;
      INSERT INTO search_term_df (scope_id, term, df)
        SELECT ts.scope_id, t.term, ts.df FROM search_term_scopes ts JOIN search_terms t ON t.id = ts.term_id
        WHERE ts.df > 0;

      DROP TABLE search_vectors;
      DROP TABLE search_postings;
      DROP TABLE search_term_scopes;
      DROP TABLE search_terms;
      DROP TABLE search_documents;
      DROP TABLE search_meta;

      -- Contentless: the text lives in search_docs; FTS5 holds the analyzer's terms only. body is
      -- the document's own text, extra its context terms, filter its scope (never ranked).
      CREATE VIRTUAL TABLE search_fts USING fts5(
        body, extra, filter,
        content = '', contentless_delete = 1, tokenize = 'ascii'
      );
      -- A deleted document's terms leave the index segments at once, not at a later merge.
      INSERT INTO search_fts (search_fts, rank) VALUES ('secure-delete', 1);

      CREATE TABLE search_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      INSERT INTO search_state (key, value) VALUES ('fts_rebuild', '1');
      CREATE TABLE search_vector_tables (name TEXT PRIMARY KEY);
    `);
  },
};
