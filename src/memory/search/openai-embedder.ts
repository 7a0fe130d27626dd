import { type Embedder, EmbeddingError } from "./types.js";

export interface OpenAICompatibleEmbedderOptions {
  /** e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 (Ollama). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Vector size the model returns; checked on every response. */
  dimensions: number;
  /** Per-request timeout (default 30 s), combined with the caller's signal. */
  timeoutMs?: number;
  /**
   * How long to wait for the server to start answering (the response headers). Unset: only
   * `timeoutMs`. Interactive commands set it short, so a server that accepts the connection and
   * then hangs costs them seconds, not the whole request timeout, before word search takes over.
   */
  answerTimeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * The OpenAI response shape, checked by hand (no zod: `memory add` and `memory search` embed on
 * every run and must start fast). A problem names the first offending field.
 */
function responseData(json: unknown): { data: { index: number; embedding: number[] }[] } | string {
  if (json === null || typeof json !== "object" || !Array.isArray((json as { data?: unknown }).data)) {
    return "data: expected an array";
  }
  const data = (json as { data: unknown[] }).data;
  for (const [position, item] of data.entries()) {
    if (item === null || typeof item !== "object") return `data.${position}: expected an object`;
    const { index, embedding } = item as { index?: unknown; embedding?: unknown };
    if (!Number.isInteger(index) || (index as number) < 0) {
      return `data.${position}.index: expected a non-negative whole number`;
    }
    if (!Array.isArray(embedding) || !embedding.every((value) => typeof value === "number")) {
      return `data.${position}.embedding: expected an array of numbers`;
    }
  }
  return { data: data as { index: number; embedding: number[] }[] };
}

/** Any OpenAI-compatible POST {baseUrl}/embeddings endpoint (OpenAI, Ollama, LM Studio, vLLM, ...). */
export class OpenAICompatibleEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  private readonly url: string;

  constructor(private readonly options: OpenAICompatibleEmbedderOptions) {
    let url: URL;
    try {
      url = new URL(`${options.baseUrl.replace(/\/+$/, "")}/embeddings`);
    } catch {
      throw new EmbeddingError(
        `embeddings base URL "${options.baseUrl}" is not a URL: set MERCURY_EMBEDDINGS_BASE_URL to e.g. http://127.0.0.1:11434/v1`,
      );
    }
    if (options.model.trim() === "")
      throw new EmbeddingError("embeddings model is empty: set MERCURY_EMBEDDINGS_MODEL");
    if (!Number.isInteger(options.dimensions) || options.dimensions < 1) {
      throw new EmbeddingError(`embeddings dimensions must be a positive integer, got ${options.dimensions}`);
    }
    this.url = url.toString();
    this.dimensions = options.dimensions;
    this.id = `${url.host}/${options.model}`;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 30_000);
    const answer = new AbortController();
    const answerMs = this.options.answerTimeoutMs;
    const answerTimer = answerMs === undefined ? undefined : setTimeout(() => answer.abort(), answerMs);
    const combined = AbortSignal.any([timeout, answer.signal, ...(signal ? [signal] : [])]);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(this.url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: this.options.model, input: texts }),
        signal: combined,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      if (answer.signal.aborted) {
        throw new EmbeddingError(
          `the embedding server at ${this.url} did not start answering within ${answerMs} ms. Check that it is running and not stuck, or give it longer with MERCURY_EMBEDDINGS_ANSWER_TIMEOUT_MS`,
          { cause: error },
        );
      }
      const reason = timeout.aborted ? "timed out" : (error as Error).message;
      throw new EmbeddingError(
        `embeddings request to ${this.url} failed: ${reason}. Is the server running?`,
        {
          cause: error,
        },
      );
    } finally {
      clearTimeout(answerTimer);
    }
    const body = await response.text();
    if (!response.ok) {
      throw new EmbeddingError(
        `embeddings request to ${this.url} failed with HTTP ${response.status}: ${body.slice(0, 300)}` +
          (response.status === 401 || response.status === 403 ? " (check the API key)" : ""),
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new EmbeddingError(`embeddings response from ${this.url} is not JSON: ${body.slice(0, 200)}`);
    }
    const parsed = responseData(json);
    if (typeof parsed === "string") {
      throw new EmbeddingError(
        `embeddings response from ${this.url} is not OpenAI-shaped ({data: [{index, embedding}]}): ${parsed}`,
      );
    }
    // Filled by index: a plain `new Array(n)` has holes that .map() would skip silently.
    const vectors: (Float32Array | undefined)[] = Array.from({ length: texts.length }, () => undefined);
    for (const item of parsed.data) {
      if (item.index >= texts.length) {
        throw new EmbeddingError(`embeddings response has index ${item.index} for ${texts.length} inputs`);
      }
      if (item.embedding.length !== this.dimensions) {
        throw new EmbeddingError(
          `model ${this.options.model} returned ${item.embedding.length} dimensions, configured ${this.dimensions}`,
        );
      }
      vectors[item.index] = Float32Array.from(item.embedding);
    }
    return vectors.map((vector, index) => {
      if (!vector) throw new EmbeddingError(`embeddings response has no vector for input ${index}`);
      return vector;
    });
  }
}
