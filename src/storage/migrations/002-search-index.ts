import type { Migration } from "./types.js";

/**
 * The retrieval index (src/memory/search): BM25 postings over analyzed terms and embedding vectors.
 * Documents are referenced by (namespace, doc_id) so the index does not depend on the tables of the
 * memory store; the store keeps it in step and removing a document removes every trace of it here,
 * including dictionary terms no other document uses.
 */
export const searchIndexMigration: Migration = {
  version: 2,
  name: "search-index",
  up(database) {
    database.exec(`
      -- One row per (namespace, scope): scopes separate people; BM25 statistics are computed over
      -- the scopes a search asks for, so one person's documents never shape another's ranking.
      CREATE TABLE search_scopes (
        id INTEGER PRIMARY KEY,
        namespace TEXT NOT NULL,
        scope TEXT NOT NULL,
        doc_count INTEGER NOT NULL DEFAULT 0,
        total_length REAL NOT NULL DEFAULT 0,
        UNIQUE (namespace, scope)
      );

      -- The dictionary. A term no document uses any more is deleted (a forgotten memory's words
      -- must not stay behind).
      CREATE TABLE search_terms (
        id INTEGER PRIMARY KEY,
        term TEXT NOT NULL UNIQUE
      );

      -- Documents per (term, scope): BM25 idf over exactly the scopes searched, without counting.
      CREATE TABLE search_term_scopes (
        term_id INTEGER NOT NULL,
        scope_id INTEGER NOT NULL,
        df INTEGER NOT NULL,
        PRIMARY KEY (term_id, scope_id)
      ) WITHOUT ROWID;

      -- terms: JSON {term: weighted tf} of the document, used to remove it and for feedback.
      CREATE TABLE search_documents (
        id INTEGER PRIMARY KEY,
        namespace TEXT NOT NULL,
        doc_id INTEGER NOT NULL,
        scope_id INTEGER NOT NULL REFERENCES search_scopes(id),
        text TEXT NOT NULL,
        terms TEXT NOT NULL,
        length REAL NOT NULL,
        UNIQUE (namespace, doc_id)
      );

      -- (term, scope) first: a query reads exactly the postings of its terms in its scopes.
      CREATE TABLE search_postings (
        term_id INTEGER NOT NULL,
        scope_id INTEGER NOT NULL,
        document_id INTEGER NOT NULL,
        tf REAL NOT NULL,
        length REAL NOT NULL,
        PRIMARY KEY (term_id, scope_id, document_id)
      ) WITHOUT ROWID;

      -- Float32 little-endian vectors; model names the embedder so a change of model re-embeds.
      CREATE TABLE search_vectors (
        document_id INTEGER PRIMARY KEY REFERENCES search_documents(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        dimensions INTEGER NOT NULL,
        vector BLOB NOT NULL
      );

      -- Generations change on every write so in-process caches (posting lists, vectors) reload.
      CREATE TABLE search_meta (
        key TEXT PRIMARY KEY,
        value INTEGER NOT NULL
      );
      INSERT INTO search_meta (key, value) VALUES ('vector_generation', 0), ('lexical_generation', 0);
    `);
  },
};
