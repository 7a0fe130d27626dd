export type SearchNamespace = "memory" | "episode";

/** One piece of a document's context (e.g. one neighbouring turn) with its weight relative to the others. */
export interface ContextPart {
  text: string;
  /** In (0, 1]: 1 for the nearest neighbours, less for farther ones. */
  weight: number;
}

export type SpeakerRole = "user" | "assistant";

export interface IndexedDocument {
  namespace: SearchNamespace;
  /** The id of the row in the owning table (semantic memory or episode). */
  id: number;
  /** Whose document this is, e.g. "owner" or "telegram:42". Searches name the scopes they may see. */
  scope: string;
  text: string;
  /**
   * Optional surrounding text (e.g. neighbouring turns of an episode). It is indexed with a lower
   * weight than `text`, so a document is found through its context but ranks below one that says it.
   */
  context?: string | readonly ContextPart[];
  /**
   * Optional name of who said or wrote the text (an episode's speaker). Indexed as a separate field:
   * a query that names the speaker ranks that person's own turns first (see precision.ts).
   */
  speaker?: string;
  /**
   * Optional role of the speaker in a conversation with the assistant: the user (whose memory this
   * is) or the assistant. A question in the first person ("what did I buy") asks about the user's
   * own words, one in the second person ("what did you recommend") about the assistant's (see
   * precision.ts). Documents of conversations between people (no assistant) have none.
   */
  role?: SpeakerRole;
  /**
   * Optional key of the conversation session the document belongs to (an episode's session id).
   * Stored as a field term; turns of one session are ranked with their session in mind (sessions.ts).
   */
  session?: string;
  /**
   * When it happened, ISO-8601 (an episode's turn time, a memory's validity start, a benchmark
   * session's date): the same field whatever produced it.
   */
  occurredAt?: string;
}

export interface SearchOptions {
  namespace: SearchNamespace;
  scopes: readonly string[];
  /** Candidates returned, at least 100 by default so the final ranking has room to work. */
  pool?: number;
  signal?: AbortSignal;
}

export interface SearchHit {
  namespace: SearchNamespace;
  id: number;
  scope: string;
  /** In [0, 1]; 1 for the best candidate of every retriever. See fuse() for the formula. */
  relevance: number;
  /** 1-based rank in the BM25 list, or null when the lexical retriever did not return it. */
  lexicalRank: number | null;
  /** 1-based rank in the vector list, or null when no vectors were searched or it was not returned. */
  vectorRank: number | null;
}

export interface Embedder {
  /** Names the model; vectors made by another model are re-embedded, never compared. */
  readonly id: string;
  readonly dimensions: number;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export class EmbeddingError extends Error {
  override name = "EmbeddingError";
}
