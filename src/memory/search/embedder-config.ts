import { HashEmbedder } from "./hash-embedder.js";
import { OpenAICompatibleEmbedder } from "./openai-embedder.js";
import { type Embedder, EmbeddingError } from "./types.js";

/** Vector sizes of common embedding models, so most setups need no dimensions setting. */
const KNOWN_DIMENSIONS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
  "nomic-embed-text": 768,
  "mxbai-embed-large": 1024,
  "all-minilm": 384,
  "snowflake-arctic-embed": 1024,
  "bge-m3": 1024,
};

const DEFAULTS: Readonly<Record<string, { baseUrl?: string; model?: string; keyVariable?: string }>> = {
  openai: {
    baseUrl: "https://api.openai.com/v1",
    model: "text-embedding-3-small",
    keyVariable: "OPENAI_API_KEY",
  },
  ollama: { baseUrl: "http://127.0.0.1:11434/v1", model: "nomic-embed-text" },
  "openai-compatible": {},
};

/** How long an interactive command waits for the embedding server to start answering. */
export const INTERACTIVE_ANSWER_TIMEOUT_MS = 3000;

/**
 * The embedder configured by MERCURY_EMBEDDINGS_PROVIDER (openai | ollama | openai-compatible |
 * hash, the deterministic offline fake), _MODEL, _BASE_URL, _DIMENSIONS and _API_KEY (or
 * OPENAI_API_KEY for openai). Unset or "none": undefined, i.e. lexical retrieval only.
 * A configuration that cannot work throws an EmbeddingError that says what to set.
 * MERCURY_EMBEDDINGS_ANSWER_TIMEOUT_MS bounds the wait for the server to start answering; for
 * `interactive` callers (the memory commands) it defaults to INTERACTIVE_ANSWER_TIMEOUT_MS, so a
 * hung server costs a person seconds before word search takes over, not the 30 s request timeout.
 */
export function embedderFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: { interactive?: boolean } = {},
): Embedder | undefined {
  const provider = (env.MERCURY_EMBEDDINGS_PROVIDER ?? "").trim().toLowerCase();
  if (provider === "" || provider === "none") return undefined;
  const dimensionsText = env.MERCURY_EMBEDDINGS_DIMENSIONS?.trim();
  const explicitDimensions = dimensionsText ? Number(dimensionsText) : undefined;
  if (explicitDimensions !== undefined && (!Number.isInteger(explicitDimensions) || explicitDimensions < 1)) {
    throw new EmbeddingError(
      `MERCURY_EMBEDDINGS_DIMENSIONS must be a positive integer, got "${dimensionsText}"`,
    );
  }
  if (provider === "hash") return new HashEmbedder(explicitDimensions ?? 384);
  const defaults = DEFAULTS[provider];
  if (!defaults) {
    throw new EmbeddingError(
      `MERCURY_EMBEDDINGS_PROVIDER "${provider}" is not supported: use openai, ollama, openai-compatible, hash or none`,
    );
  }
  const baseUrl = env.MERCURY_EMBEDDINGS_BASE_URL?.trim() || defaults.baseUrl;
  if (!baseUrl) {
    throw new EmbeddingError(
      `MERCURY_EMBEDDINGS_BASE_URL is required for provider ${provider} (e.g. http://127.0.0.1:8080/v1)`,
    );
  }
  const model = env.MERCURY_EMBEDDINGS_MODEL?.trim() || defaults.model;
  if (!model) throw new EmbeddingError(`MERCURY_EMBEDDINGS_MODEL is required for provider ${provider}`);
  const dimensions = explicitDimensions ?? KNOWN_DIMENSIONS[model.replace(/:.*$/, "")];
  if (dimensions === undefined) {
    throw new EmbeddingError(
      `the vector size of embedding model "${model}" is not known: set MERCURY_EMBEDDINGS_DIMENSIONS`,
    );
  }
  const apiKey =
    env.MERCURY_EMBEDDINGS_API_KEY?.trim() ||
    (defaults.keyVariable ? env[defaults.keyVariable]?.trim() : undefined);
  if (provider === "openai" && !apiKey) {
    throw new EmbeddingError(
      "OpenAI embeddings need an API key: set OPENAI_API_KEY or MERCURY_EMBEDDINGS_API_KEY",
    );
  }
  const answerText = env.MERCURY_EMBEDDINGS_ANSWER_TIMEOUT_MS?.trim();
  const answerTimeoutMs = answerText
    ? Number(answerText)
    : options.interactive
      ? INTERACTIVE_ANSWER_TIMEOUT_MS
      : undefined;
  if (answerTimeoutMs !== undefined && (!Number.isInteger(answerTimeoutMs) || answerTimeoutMs < 1)) {
    throw new EmbeddingError(
      `MERCURY_EMBEDDINGS_ANSWER_TIMEOUT_MS must be a positive whole number of milliseconds, got "${answerText}"`,
    );
  }
  return new OpenAICompatibleEmbedder({
    baseUrl,
    model,
    dimensions,
    ...(apiKey ? { apiKey } : {}),
    ...(answerTimeoutMs !== undefined ? { answerTimeoutMs } : {}),
  });
}
