import { afterEach, describe, expect, it } from "vitest";
import { HashEmbedder } from "../../../src/memory/search/hash-embedder.js";
import { OpenAICompatibleEmbedder } from "../../../src/memory/search/openai-embedder.js";
import { EmbeddingError } from "../../../src/memory/search/types.js";
import { type EmbeddingsServer, startEmbeddingsServer } from "../../fakes/embeddings-server.js";
import { startHungServer } from "../../fakes/hung-server.js";

let server: EmbeddingsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("OpenAICompatibleEmbedder", () => {
  it("embeds texts in input order, sending model and API key", async () => {
    server = await startEmbeddingsServer({ dimensions: 16 });
    const embedder = new OpenAICompatibleEmbedder({
      baseUrl: `${server.baseUrl}/`,
      model: "nomic-embed-text",
      apiKey: "k-123",
      dimensions: 16,
    });
    const vectors = await embedder.embed(["first text", "second text"]);
    const reference = new HashEmbedder(16);
    expect(vectors.map((v) => [...v])).toEqual(
      [[...reference.embedOne("first text")], [...reference.embedOne("second text")]].map((v) =>
        v.map((x) => Math.fround(x)),
      ),
    );
    expect(server.requests[0]?.authorization).toBe("Bearer k-123");
    expect(server.requests[0]?.body).toEqual({
      model: "nomic-embed-text",
      input: ["first text", "second text"],
    });
    expect(embedder.id).toContain("nomic-embed-text");
  });

  it("sends no request for no texts", async () => {
    server = await startEmbeddingsServer();
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: "m", dimensions: 384 });
    expect(await embedder.embed([])).toEqual([]);
    expect(server.requests.length).toBe(0);
  });

  it("turns an HTTP error into a clear EmbeddingError with the status and body", async () => {
    server = await startEmbeddingsServer({ failWith: { status: 401, body: '{"error":"invalid api key"}' } });
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: "m", dimensions: 384 });
    const failure = embedder.embed(["x"]);
    await expect(failure).rejects.toBeInstanceOf(EmbeddingError);
    await expect(embedder.embed(["x"])).rejects.toThrow(/HTTP 401.*invalid api key.*check the API key/);
  });

  it("rejects a malformed or wrongly sized response", async () => {
    server = await startEmbeddingsServer({ rawBody: "not json" });
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: "m", dimensions: 384 });
    await expect(embedder.embed(["x"])).rejects.toThrow(/not JSON/);
    server.options.rawBody = '{"data":[{"index":0}]}';
    await expect(embedder.embed(["x"])).rejects.toThrow(/not OpenAI-shaped/);
    server.options.rawBody = '{"data":[]}';
    await expect(embedder.embed(["x"])).rejects.toThrow(/no vector for input 0/);
    server.options.rawBody = undefined;
    server.options.dimensions = 8;
    await expect(embedder.embed(["x"])).rejects.toThrow(/returned 8 dimensions, configured 384/);
  });

  it("explains an unreachable server", async () => {
    server = await startEmbeddingsServer();
    const baseUrl = server.baseUrl;
    await server.close();
    server = undefined;
    const embedder = new OpenAICompatibleEmbedder({ baseUrl, model: "m", dimensions: 384 });
    await expect(embedder.embed(["x"])).rejects.toThrow(/failed: .*Is the server running\?/);
  });

  it("rejects bad configuration up front", () => {
    expect(() => new OpenAICompatibleEmbedder({ baseUrl: "not a url", model: "m", dimensions: 3 })).toThrow(
      /MERCURY_EMBEDDINGS_BASE_URL/,
    );
    expect(
      () => new OpenAICompatibleEmbedder({ baseUrl: "http://127.0.0.1:1/v1", model: " ", dimensions: 3 }),
    ).toThrow(/MERCURY_EMBEDDINGS_MODEL/);
    expect(
      () => new OpenAICompatibleEmbedder({ baseUrl: "http://127.0.0.1:1/v1", model: "m", dimensions: 0 }),
    ).toThrow(/dimensions/);
  });

  it("passes the caller's abort through", async () => {
    server = await startEmbeddingsServer();
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: "m", dimensions: 384 });
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(["x"], controller.signal)).rejects.toThrow();
  });
});

describe("OpenAICompatibleEmbedder against a server that never answers", () => {
  it("gives up after the answer timeout with an error that says what to check and what to set", async () => {
    const hung = await startHungServer();
    try {
      const embedder = new OpenAICompatibleEmbedder({
        baseUrl: hung.baseUrl,
        model: "m",
        dimensions: 8,
        answerTimeoutMs: 200,
      });
      const attempt = embedder.embed(["hello"]);
      await hung.firstRequest;
      await expect(attempt).rejects.toThrow(EmbeddingError);
      await expect(attempt).rejects.toThrow(/did not start answering within 200 ms/);
      await expect(attempt).rejects.toThrow(/MERCURY_EMBEDDINGS_ANSWER_TIMEOUT_MS/);
    } finally {
      await hung.close();
    }
  });
});
