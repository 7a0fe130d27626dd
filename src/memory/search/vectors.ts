import type { SqliteDatabase } from "../../storage/database.js";

/**
 * Embedding vectors, stored as Float32 BLOBs and searched by brute force from an in-process cache.
 * The cache keeps each vector twice in compact form: 8-bit quantized (unit-normalized, scaled by 127)
 * for scoring, and its sign bits for a fast Hamming prefilter when there are many vectors. At 1e5
 * vectors of 384 dimensions that is 38 MB + 5 MB, and a query reads the sign bits of all of them
 * and the 8-bit vectors of the best few thousand only.
 */

const PREFILTER_ABOVE = 20_000;
const PREFILTER_FACTOR = 20;

interface Cache {
  generation: number;
  model: string;
  dimensions: number;
  count: number;
  documentIds: Int32Array;
  scopeIds: Int32Array;
  quantized: Int8Array;
  bits: Uint32Array;
  words: number;
}

export interface VectorResult {
  documentId: number;
  similarity: number;
}

export function encodeVector(vector: Float32Array): Buffer {
  const buffer = Buffer.alloc(vector.length * 4);
  for (let index = 0; index < vector.length; index++) buffer.writeFloatLE(vector[index] ?? 0, index * 4);
  return buffer;
}

export function decodeVector(blob: Buffer): Float32Array {
  const vector = new Float32Array(blob.length / 4);
  for (let index = 0; index < vector.length; index++) vector[index] = blob.readFloatLE(index * 4);
  return vector;
}

function popcount(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function quantizeInto(
  vector: Float32Array,
  target: Int8Array,
  offset: number,
  bits: Uint32Array,
  bitOffset: number,
) {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = norm > 0 ? 127 / Math.sqrt(norm) : 0;
  for (let index = 0; index < vector.length; index++) {
    const value = vector[index] ?? 0;
    target[offset + index] = Math.round(value * scale);
    if (value > 0) {
      const word = bitOffset + (index >>> 5);
      bits[word] = ((bits[word] ?? 0) | (1 << (index & 31))) >>> 0;
    }
  }
}

export class VectorStore {
  private cache: Cache | undefined;
  private readonly statements;

  constructor(database: SqliteDatabase) {
    this.statements = {
      generation: database.prepare("SELECT value FROM search_meta WHERE key = 'vector_generation'").pluck(),
      bump: database.prepare("UPDATE search_meta SET value = value + 1 WHERE key = 'vector_generation'"),
      put: database.prepare(
        "INSERT OR REPLACE INTO search_vectors (document_id, model, dimensions, vector) VALUES (?, ?, ?, ?)",
      ),
      pending: database.prepare(
        `SELECT d.id, d.text FROM search_documents d LEFT JOIN search_vectors v ON v.document_id = d.id
         WHERE v.document_id IS NULL OR v.model != ? OR v.dimensions != ? ORDER BY d.id LIMIT ?`,
      ),
      all: database
        .prepare(
          `SELECT v.document_id, d.scope_id, v.vector FROM search_vectors v JOIN search_documents d ON d.id = v.document_id
           WHERE v.model = ? AND v.dimensions = ? ORDER BY v.document_id`,
        )
        .raw(),
    };
  }

  /** Must be called after any change that adds or removes a vector, so caches reload. */
  invalidate(): void {
    this.statements.bump.run();
  }

  put(documentId: number, model: string, vector: Float32Array): void {
    this.statements.put.run(documentId, model, vector.length, encodeVector(vector));
  }

  pending(model: string, dimensions: number, limit: number): { id: number; text: string }[] {
    return this.statements.pending.all(model, dimensions, limit) as { id: number; text: string }[];
  }

  search(query: Float32Array, model: string, scopeIds: readonly number[], limit: number): VectorResult[] {
    const cache = this.load(model, query.length);
    if (cache.count === 0) return [];
    const allowed = new Set(scopeIds);
    const queryInt = new Int8Array(cache.dimensions);
    const queryBits = new Uint32Array(cache.words);
    quantizeInto(query, queryInt, 0, queryBits, 0);
    let candidates: number[] = [];
    for (let index = 0; index < cache.count; index++) {
      if (allowed.has(cache.scopeIds[index] ?? -1)) candidates.push(index);
    }
    if (candidates.length > PREFILTER_ABOVE) candidates = this.prefilter(cache, queryBits, candidates, limit);
    const results: VectorResult[] = [];
    const dims = cache.dimensions;
    const data = cache.quantized;
    for (const index of candidates) {
      let dot = 0;
      const offset = index * dims;
      for (let d = 0; d < dims; d++) dot += (data[offset + d] ?? 0) * (queryInt[d] ?? 0);
      results.push({ documentId: cache.documentIds[index] ?? 0, similarity: dot / (127 * 127) });
    }
    results.sort((a, b) => b.similarity - a.similarity || a.documentId - b.documentId);
    return results.slice(0, limit);
  }

  /** Keeps the candidates whose sign bits are closest to the query's (fewest differing bits). */
  private prefilter(cache: Cache, queryBits: Uint32Array, candidates: number[], limit: number): number[] {
    const keep = Math.max(limit * PREFILTER_FACTOR, 2000);
    const words = cache.words;
    const bits = cache.bits;
    const distances = new Uint16Array(candidates.length);
    const histogram = new Uint32Array(words * 32 + 1);
    for (let c = 0; c < candidates.length; c++) {
      const offset = (candidates[c] ?? 0) * words;
      let distance = 0;
      for (let w = 0; w < words; w++)
        distance += popcount(((bits[offset + w] ?? 0) ^ (queryBits[w] ?? 0)) >>> 0);
      distances[c] = distance;
      histogram[distance] = (histogram[distance] ?? 0) + 1;
    }
    let cutoff = 0;
    let seen = 0;
    while (cutoff < histogram.length && seen + (histogram[cutoff] ?? 0) <= keep)
      seen += histogram[cutoff++] ?? 0;
    // Include the whole boundary bucket: a partial bucket would depend on iteration order.
    return candidates.filter((_, c) => (distances[c] ?? 0) <= cutoff);
  }

  private load(model: string, dimensions: number): Cache {
    const generation = Number(this.statements.generation.get());
    const cached = this.cache;
    if (
      cached &&
      cached.generation === generation &&
      cached.model === model &&
      cached.dimensions === dimensions
    ) {
      return cached;
    }
    const rows = this.statements.all.all(model, dimensions) as [number, number, Buffer][];
    const words = Math.ceil(dimensions / 32);
    const cache: Cache = {
      generation,
      model,
      dimensions,
      count: rows.length,
      documentIds: new Int32Array(rows.length),
      scopeIds: new Int32Array(rows.length),
      quantized: new Int8Array(rows.length * dimensions),
      bits: new Uint32Array(rows.length * words),
      words,
    };
    rows.forEach(([documentId, scopeId, blob], index) => {
      cache.documentIds[index] = documentId;
      cache.scopeIds[index] = scopeId;
      const vector =
        blob.byteOffset % 4 === 0
          ? new Float32Array(blob.buffer, blob.byteOffset, blob.length / 4)
          : decodeVector(blob);
      quantizeInto(vector, cache.quantized, index * dimensions, cache.bits, index * words);
    });
    this.cache = cache;
    return cache;
  }
}
