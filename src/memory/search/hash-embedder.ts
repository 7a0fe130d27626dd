import { createHash } from "node:crypto";
import { analyze } from "../text/analyze.js";
import type { Embedder } from "./types.js";

/**
 * A deterministic stand-in for a real embedding model, for tests and benchmarks: each analyzed term
 * (and each pair of adjacent terms) adds a pseudo-random ±1 pattern to a few dimensions chosen by its
 * hash (feature hashing), and the sum is L2-normalized. Texts sharing terms get similar vectors.
 * It knows no synonyms; its only purpose is realistic vector shape, storage and latency.
 */
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
      const digest = createHash("sha256").update(feature).digest();
      const weight = feature.includes(" ") ? 0.5 : 1;
      // Four (dimension, sign) pairs per feature, from disjoint bytes of the digest.
      for (let slot = 0; slot < 4; slot++) {
        const dimension = digest.readUInt32LE(slot * 4) % this.dimensions;
        const sign = (digest[16 + slot] ?? 0) & 1 ? 1 : -1;
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
