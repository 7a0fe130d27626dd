import type { SqliteDatabase } from "../../storage/database.js";
import { SearchIndexCore, type SearchIndexOptions } from "./search-index-core.js";
import { VectorStore } from "./vectors.js";

export * from "./search-index-core.js";

/**
 * The search index with its vector store (see SearchIndexCore): what every caller with an embedder
 * uses. Without one it is the same as SearchIndexCore, which the memory commands use directly so
 * the vector code is not loaded when no embeddings are configured.
 */
export class SearchIndex extends SearchIndexCore {
  constructor(database: SqliteDatabase, options: SearchIndexOptions = {}) {
    super(
      database,
      options,
      (db, embedder, quantization) => new VectorStore(db, embedder.id, embedder.dimensions, quantization),
    );
  }
}
