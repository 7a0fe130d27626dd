import { describe, expect, it } from "vitest";
import {
  embedderFromEnv,
  INTERACTIVE_ANSWER_TIMEOUT_MS,
} from "../../../src/memory/search/embedder-config.js";
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

  it("gives interactive commands a short answer timeout, configurable, and checks it", () => {
    const base = {
      MERCURY_EMBEDDINGS_PROVIDER: "openai-compatible",
      MERCURY_EMBEDDINGS_BASE_URL: "http://127.0.0.1:9999/v1",
      MERCURY_EMBEDDINGS_MODEL: "m",
      MERCURY_EMBEDDINGS_DIMENSIONS: "8",
    };
    const answerTimeout = (embedder: unknown) =>
      (embedder as { options: { answerTimeoutMs?: number } }).options.answerTimeoutMs;
    expect(answerTimeout(embedderFromEnv(base))).toBeUndefined();
    expect(answerTimeout(embedderFromEnv(base, { interactive: true }))).toBe(INTERACTIVE_ANSWER_TIMEOUT_MS);
    const configured = { ...base, MERCURY_EMBEDDINGS_ANSWER_TIMEOUT_MS: "750" };
    expect(answerTimeout(embedderFromEnv(configured, { interactive: true }))).toBe(750);
    expect(answerTimeout(embedderFromEnv(configured))).toBe(750);
    expect(() => embedderFromEnv({ ...base, MERCURY_EMBEDDINGS_ANSWER_TIMEOUT_MS: "soon" })).toThrow(
      /MERCURY_EMBEDDINGS_ANSWER_TIMEOUT_MS must be a positive whole number/,
    );
  });
});
