import { describe, expect, it } from "vitest";
import { embedderFromEnv } from "../../../src/memory/search/embedder-config.js";
import { HashEmbedder } from "../../../src/memory/search/hash-embedder.js";
import { OpenAICompatibleEmbedder } from "../../../src/memory/search/openai-embedder.js";

describe("embedderFromEnv", () => {
  it("is off by default (lexical only, zero download)", () => {
    expect(embedderFromEnv({})).toBeUndefined();
    expect(embedderFromEnv({ MERCURY_EMBEDDINGS_PROVIDER: "none" })).toBeUndefined();
  });

  it("configures Ollama with defaults and any OpenAI-compatible server", () => {
    const ollama = embedderFromEnv({ MERCURY_EMBEDDINGS_PROVIDER: "ollama" });
    expect(ollama).toBeInstanceOf(OpenAICompatibleEmbedder);
    expect(ollama?.dimensions).toBe(768);
    expect(ollama?.id).toBe("127.0.0.1:11434/nomic-embed-text");
    const custom = embedderFromEnv({
      MERCURY_EMBEDDINGS_PROVIDER: "openai-compatible",
      MERCURY_EMBEDDINGS_BASE_URL: "http://127.0.0.1:9999/v1",
      MERCURY_EMBEDDINGS_MODEL: "my-model",
      MERCURY_EMBEDDINGS_DIMENSIONS: "256",
    });
    expect(custom?.dimensions).toBe(256);
  });

  it("offers the deterministic hash embedder", () => {
    expect(embedderFromEnv({ MERCURY_EMBEDDINGS_PROVIDER: "hash" })).toBeInstanceOf(HashEmbedder);
  });

  it("says what to set when the configuration cannot work", () => {
    expect(() => embedderFromEnv({ MERCURY_EMBEDDINGS_PROVIDER: "magic" })).toThrow(/not supported/);
    expect(() => embedderFromEnv({ MERCURY_EMBEDDINGS_PROVIDER: "openai" })).toThrow(/OPENAI_API_KEY/);
    expect(() => embedderFromEnv({ MERCURY_EMBEDDINGS_PROVIDER: "openai-compatible" })).toThrow(
      /MERCURY_EMBEDDINGS_BASE_URL/,
    );
    expect(() =>
      embedderFromEnv({ MERCURY_EMBEDDINGS_PROVIDER: "ollama", MERCURY_EMBEDDINGS_MODEL: "exotic" }),
    ).toThrow(/MERCURY_EMBEDDINGS_DIMENSIONS/);
    expect(() =>
      embedderFromEnv({ MERCURY_EMBEDDINGS_PROVIDER: "hash", MERCURY_EMBEDDINGS_DIMENSIONS: "-3" }),
    ).toThrow(/positive integer/);
  });
});
