import { analyze } from "../text/analyze.js";
import type { Embedder } from "./types.js";

/**
 * A deterministic stand-in for a real embedding model, for tests and benchmarks: each analyzed term
 * (and each pair of adjacent terms) adds a pseudo-random ±1 pattern to a few dimensions chosen by its
 * hash (feature hashing), and the sum is L2-normalized. Texts sharing terms get similar vectors.
 * It knows no synonyms; its only purpose is realistic vector shape, storage and latency.
 */
/** 32-bit FNV-1a with a seed: fast, deterministic, well spread; not cryptographic (no need). */
function fnv1a(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ Math.imul(seed + 1, 0x9e3779b1)) >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  // Final avalanche so nearby inputs differ in the low bits used for the sign and dimension.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b) >>> 0;
  hash ^= hash >>> 13;
  return hash >>> 0;
}

export class HashEmbedder implements Embedder {
  readonly id: string;

  constructor(readonly dimensions = 384) {
    if (!Number.isInteger(dimensions) || dimensions < 8) {
      throw new RangeError(`HashEmbedder needs an integer dimension count >= 8, got ${dimensions}`);
    }
    this.id = `hash-${dimensions}`;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    return texts.map((text) => this.embedOne(text));
  }

  embedOne(text: string): Float32Array {
    const vector = new Float32Array(this.dimensions);
    const terms = analyze(text);
    const features = [...terms, ...terms.slice(1).map((term, index) => `${terms[index]} ${term}`)];
    for (const feature of features) {
      const weight = feature.includes(" ") ? 0.5 : 1;
      // Four (dimension, sign) pairs per feature from four seeded hashes.
      for (let slot = 0; slot < 4; slot++) {
        const hash = fnv1a(feature, slot);
        const dimension = (hash >>> 1) % this.dimensions;
        const sign = hash & 1 ? 1 : -1;
        vector[dimension] = (vector[dimension] ?? 0) + sign * weight;
      }
    }
    let norm = 0;
    for (const value of vector) norm += value * value;
    if (norm > 0) {
      const scale = 1 / Math.sqrt(norm);
      for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] ?? 0) * scale;
    }
    return vector;
  }
}
