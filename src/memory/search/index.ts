export { BM25_B, BM25_K1, CONTEXT_WEIGHT } from "./bm25.js";
export { embedderFromEnv } from "./embedder-config.js";
export { HashEmbedder } from "./hash-embedder.js";
export { OpenAICompatibleEmbedder, type OpenAICompatibleEmbedderOptions } from "./openai-embedder.js";
export * from "./rank.js";
export { DEFAULT_POOL, SearchIndex, type SearchIndexOptions } from "./search-index.js";
export * from "./types.js";
