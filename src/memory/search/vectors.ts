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

function allIndexes(cache: Cache, isAllowed: (scopeId: number) => boolean): Int32Array {
  const indexes: number[] = [];
  for (let index = 0; index < cache.count; index++)
    if (isAllowed(cache.scopeIds[index] as number)) indexes.push(index);
  return Int32Array.from(indexes);
}

/**
 * Indexes of the allowed vectors whose sign bits are closest to the query's (fewest differing
 * bits), at least `keep` of them; the whole boundary distance is included so the result does not
 * depend on iteration order.
 */
function prefilter(
  cache: Cache,
  queryBits: Uint32Array,
  isAllowed: (scopeId: number) => boolean,
  keep: number,
): Int32Array {
  const words = cache.words;
  const bits = cache.bits;
  const distances = new Uint16Array(cache.count);
  const histogram = new Uint32Array(words * 32 + 2);
  const excluded = histogram.length - 1;
  for (let index = 0; index < cache.count; index++) {
    if (!isAllowed(cache.scopeIds[index] as number)) {
      distances[index] = excluded;
      continue;
    }
    const offset = index * words;
    let distance = 0;
    for (let w = 0; w < words; w++)
      distance += popcount(((bits[offset + w] as number) ^ (queryBits[w] as number)) >>> 0);
    distances[index] = distance;
    histogram[distance] = (histogram[distance] as number) + 1;
  }
  let cutoff = 0;
  let seen = 0;
  while (cutoff < excluded - 1 && seen + (histogram[cutoff] as number) < keep)
    seen += histogram[cutoff++] as number;
  const indexes: number[] = [];
  for (let index = 0; index < cache.count; index++)
    if ((distances[index] as number) <= cutoff) indexes.push(index);
  return Int32Array.from(indexes);
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
      count: database
        .prepare("SELECT COUNT(*) FROM search_vectors WHERE model = ? AND dimensions = ?")
        .pluck(),
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
    const allowed = Int32Array.from(scopeIds);
    const isAllowed = (scopeId: number) => {
      for (let index = 0; index < allowed.length; index++) if (allowed[index] === scopeId) return true;
      return false;
    };
    const queryInt = new Int8Array(cache.dimensions);
    const queryBits = new Uint32Array(cache.words);
    quantizeInto(query, queryInt, 0, queryBits, 0);
    const candidates =
      cache.count > PREFILTER_ABOVE
        ? prefilter(cache, queryBits, isAllowed, Math.max(limit * PREFILTER_FACTOR, 2000))
        : allIndexes(cache, isAllowed);
    const results: VectorResult[] = [];
    const dims = cache.dimensions;
    const data = cache.quantized;
    for (let c = 0; c < candidates.length; c++) {
      const index = candidates[c] as number;
      let dot = 0;
      const offset = index * dims;
      for (let d = 0; d < dims; d++) dot += (data[offset + d] as number) * (queryInt[d] as number);
      results.push({ documentId: cache.documentIds[index] as number, similarity: dot / (127 * 127) });
    }
    results.sort((a, b) => b.similarity - a.similarity || a.documentId - b.documentId);
    return results.slice(0, limit);
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
    // Counted first and streamed: holding 1e5 row Buffers at once would double peak memory.
    const total = Number(this.statements.count.get(model, dimensions));
    const words = Math.ceil(dimensions / 32);
    const cache: Cache = {
      generation,
      model,
      dimensions,
      count: 0,
      documentIds: new Int32Array(total),
      scopeIds: new Int32Array(total),
      quantized: new Int8Array(total * dimensions),
      bits: new Uint32Array(total * words),
      words,
    };
    for (const row of this.statements.all.iterate(model, dimensions)) {
      const [documentId, scopeId, blob] = row as [number, number, Buffer];
      const index = cache.count;
      if (index >= total) break;
      cache.count++;
      cache.documentIds[index] = documentId;
      cache.scopeIds[index] = scopeId;
      // SQLite's buffers are not always 4-byte aligned; one copy is far cheaper than readFloatLE.
      const vector =
        blob.byteOffset % 4 === 0
          ? new Float32Array(blob.buffer, blob.byteOffset, blob.length / 4)
          : new Float32Array(Uint8Array.from(blob).buffer);
      quantizeInto(vector, cache.quantized, index * dimensions, cache.bits, index * words);
    }
    this.cache = cache;
    return cache;
  }
}
