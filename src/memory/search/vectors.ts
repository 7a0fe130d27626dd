import type { SqliteDatabase } from "../../storage/database.js";
import { CODE_BITS, CODE_SCHEME, Hyperplanes } from "./simhash.js";
import { loadVectorExtension } from "./sqlite-vec.js";
import { forEachStoredVector, kindOfScheme } from "./vector-adoption.js";

export { deleteVectorsOf } from "./sqlite-vec.js";

/**
 * Embedding vectors, one row per document (rowid = search_docs.id), with the scope (search_scopes.id)
 * so a search reads only the vectors it may see. Inserts and deletes are single rows in the caller's
 * transaction: nothing is cached or reloaded.
 *
 * "float": a sqlite-vec `vec0` table partitioned by scope; its k-nearest-neighbour search
 * is an exact scan, about 0.4 microseconds per 384-dimension vector on one core (no SIMD in the
 * prebuilt extension): 40 ms at 100,000 documents.
 *
 * "binary" (default since 2026-12-01): a CODE_BITS-bit SimHash code per document (simhash.ts) in a plain table, scanned with
 * sqlite-vec's vec_distance_hamming under SQLite's ORDER BY ... LIMIT (keeps only the best k; vec0's
 * own top-k selection grows with k and costs more at 800), and the float vectors in another plain
 * table, read by primary key: the best RESCORE_FACTOR x k codes are rescored by exact cosine in the
 * same statement, so the order returned is the float one among them.
 *
 * "int8": a `vec0` int8 table with the float vector in an auxiliary column, rescored the same way;
 * its scan costs as much as the float one here.
 */
export type Quantization = "float" | "int8" | "binary";

/** The live store's kind: recall@10 against an exact scan 0.99-1 at 100,000 (BENCHMARKS.md). */
export const DEFAULT_QUANTIZATION: Quantization = "binary";

export const RESCORE_FACTOR = 8;

/** Bytes of the database file a connection with a vector store reads through a memory map (256 MiB). */
export const VECTOR_MMAP_BYTES = 256 * 1024 * 1024;

/**
 * Codes rescored for `limit` results among `documents`. A code's Hamming distance is a noisy
 * estimate of the angle, so the number of documents that look nearer than a true neighbour grows
 * with the store: the candidates grow with the square root of its size beyond 100,000 documents (a
 * compromise between recall, which would need linear growth, and the rescoring reads, one page per
 * candidate). A cost rule, not fitted to any data.
 */
export function rescoreCandidates(limit: number, documents: number): number {
  return Math.ceil(limit * RESCORE_FACTOR * Math.max(1, Math.sqrt(documents / 100_000)));
}

export interface VectorResult {
  documentId: number;
  similarity: number;
}

function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function cosine(query: Float32Array, queryNorm: number, blob: Buffer): number {
  const aligned = blob.byteOffset % 4 === 0 ? blob : Buffer.from(blob);
  const vector = new Float32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
  let dot = 0;
  let norm = 0;
  for (let index = 0; index < vector.length; index++) {
    const value = vector[index] as number;
    dot += value * (query[index] ?? 0);
    norm += value * value;
  }
  return norm === 0 || queryNorm === 0 ? 0 : dot / Math.sqrt(norm * queryNorm);
}

/** The vec0 ("float", "int8") storage: k-nearest-neighbour search inside sqlite-vec. */
class Vec0Vectors {
  private readonly statements;

  constructor(
    database: SqliteDatabase,
    readonly table: string,
    dimensions: number,
    private readonly quantization: "float" | "int8",
  ) {
    const column =
      quantization === "int8"
        ? `embedding int8[${dimensions}] distance_metric=cosine, +full blob`
        : `embedding float[${dimensions}] distance_metric=cosine`;
    database.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING vec0(scope_id integer partition key, ${column})`,
    );
    const encoded = quantization === "int8" ? "vec_quantize_int8(@vector, 'unit')" : "@vector";
    this.statements = {
      insert:
        quantization === "int8"
          ? database.prepare(
              `INSERT INTO ${table} (rowid, scope_id, embedding, full) VALUES (@id, @scope, ${encoded}, @vector)`,
            )
          : database.prepare(
              `INSERT INTO ${table} (rowid, scope_id, embedding) VALUES (@id, @scope, @vector)`,
            ),
      delete: database.prepare(`DELETE FROM ${table} WHERE rowid = ?`),
      knn: database.prepare(
        `SELECT rowid AS documentId, distance FROM ${table}
         WHERE embedding MATCH ${encoded} AND k = @k AND scope_id = @scope`,
      ),
      exact:
        quantization === "int8"
          ? database.prepare(
              `SELECT rowid AS documentId, 1 - vec_distance_cosine(full, @vector) AS similarity FROM ${table}
               WHERE scope_id = @scope ORDER BY similarity DESC LIMIT @limit`,
            )
          : undefined,
      full:
        quantization === "int8"
          ? database.prepare(
              `SELECT rowid AS documentId, full FROM ${table} WHERE rowid IN (SELECT value FROM json_each(?))`,
            )
          : undefined,
    };
  }

  get tables(): string[] {
    return [this.table];
  }

  put(documentId: number, scopeId: number, vector: Float32Array): void {
    const id = BigInt(documentId);
    this.statements.delete.run(id);
    this.statements.insert.run({ id, scope: BigInt(scopeId), vector: vectorBlob(vector) });
  }

  search(query: Float32Array, scopeIds: readonly number[], limit: number): VectorResult[] {
    const k = this.quantization === "float" ? limit : limit * RESCORE_FACTOR;
    return this.knn(query, scopeIds, k);
  }

  /** Float vectors are searched exactly already; int8 ones by the float copy of every row. */
  searchExact(query: Float32Array, scopeIds: readonly number[], limit: number): VectorResult[] {
    const exact = this.statements.exact;
    if (exact === undefined) return this.knn(query, scopeIds, limit);
    return scopeIds.flatMap(
      (scopeId) => exact.all({ vector: vectorBlob(query), scope: BigInt(scopeId), limit }) as VectorResult[],
    );
  }

  private knn(query: Float32Array, scopeIds: readonly number[], k: number): VectorResult[] {
    const found: { documentId: number; distance: number }[] = [];
    for (const scopeId of scopeIds) {
      found.push(
        ...(this.statements.knn.all({ vector: vectorBlob(query), k, scope: BigInt(scopeId) }) as {
          documentId: number;
          distance: number;
        }[]),
      );
    }
    if (this.statements.full === undefined)
      return found.map((row) => ({ documentId: row.documentId, similarity: 1 - row.distance }));
    let queryNorm = 0;
    for (const value of query) queryNorm += value * value;
    const rows = this.statements.full.all(JSON.stringify(found.map((row) => row.documentId))) as {
      documentId: number;
      full: Buffer;
    }[];
    return rows.map((row) => ({
      documentId: row.documentId,
      similarity: cosine(query, queryNorm, row.full),
    }));
  }
}

/** The "binary" storage: SimHash codes scanned by Hamming distance, float vectors for rescoring. */
class BinaryVectors {
  readonly codes: string;
  readonly full: string;
  private readonly hyperplanes: Hyperplanes;
  private readonly statements;

  constructor(database: SqliteDatabase, dimensions: number) {
    this.codes = `search_vec_simhash_${dimensions}`;
    this.full = `search_vec_full_${dimensions}`;
    this.hyperplanes = new Hyperplanes(dimensions);
    database.exec(
      `CREATE TABLE IF NOT EXISTS ${this.codes} (id INTEGER PRIMARY KEY, scope_id INTEGER NOT NULL, code BLOB NOT NULL)`,
    );
    database.exec(`CREATE TABLE IF NOT EXISTS ${this.full} (id INTEGER PRIMARY KEY, vector BLOB NOT NULL)`);
    database.prepare("INSERT OR IGNORE INTO search_vector_tables (name) VALUES (?)").run(this.full);
    this.statements = {
      insertCode: database.prepare(
        `INSERT OR REPLACE INTO ${this.codes} (id, scope_id, code) VALUES (?, ?, ?)`,
      ),
      insertFull: database.prepare(`INSERT OR REPLACE INTO ${this.full} (id, vector) VALUES (?, ?)`),
      // The scan reads only the small code rows; the float vectors of the candidates are read by key.
      search: database.prepare(
        `SELECT f.id AS documentId, 1 - vec_distance_cosine(f.vector, @query) AS similarity
         FROM (SELECT id FROM ${this.codes}
               WHERE scope_id IN (SELECT value FROM json_each(@scopes))
               ORDER BY vec_distance_hamming(vec_bit(code), vec_bit(@code)) LIMIT @candidates) AS c
         JOIN ${this.full} AS f ON f.id = c.id`,
      ),
      // Every document's scope is searched (one person's install): no filter to test per row.
      searchAll: database.prepare(
        `SELECT f.id AS documentId, 1 - vec_distance_cosine(f.vector, @query) AS similarity
         FROM (SELECT id FROM ${this.codes}
               ORDER BY vec_distance_hamming(vec_bit(code), vec_bit(@code)) LIMIT @candidates) AS c
         JOIN ${this.full} AS f ON f.id = c.id`,
      ),
      exact: database.prepare(
        `SELECT f.id AS documentId, 1 - vec_distance_cosine(f.vector, @query) AS similarity
         FROM ${this.full} AS f JOIN ${this.codes} AS c ON c.id = f.id
         WHERE c.scope_id IN (SELECT value FROM json_each(@scopes))
         ORDER BY vec_distance_cosine(f.vector, @query), f.id LIMIT @limit`,
      ),
    };
  }

  get tables(): string[] {
    return [this.codes, this.full];
  }

  put(documentId: number, scopeId: number, vector: Float32Array): void {
    this.statements.insertCode.run(documentId, scopeId, this.hyperplanes.code(vector));
    this.statements.insertFull.run(documentId, vectorBlob(vector));
  }

  search(
    query: Float32Array,
    scopeIds: readonly number[],
    limit: number,
    everyScope: boolean,
    documents: number,
  ): VectorResult[] {
    return (everyScope ? this.statements.searchAll : this.statements.search).all({
      query: vectorBlob(query),
      code: this.hyperplanes.code(query),
      scopes: JSON.stringify(scopeIds),
      candidates: rescoreCandidates(limit, documents),
    }) as VectorResult[];
  }

  searchExact(query: Float32Array, scopeIds: readonly number[], limit: number): VectorResult[] {
    return this.statements.exact.all({
      query: vectorBlob(query),
      scopes: JSON.stringify(scopeIds),
      limit,
    }) as VectorResult[];
  }
}

export class VectorStore {
  readonly table: string;
  private readonly store: Vec0Vectors | BinaryVectors;
  private readonly statements;
  private mapped = false;

  constructor(
    private readonly database: SqliteDatabase,
    readonly model: string,
    readonly dimensions: number,
    readonly quantization: Quantization = DEFAULT_QUANTIZATION,
  ) {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 8192)
      throw new RangeError(`vector dimensions must be an integer in [1, 8192], got ${dimensions}`);
    loadVectorExtension(database);
    this.store =
      quantization === "binary"
        ? new BinaryVectors(database, dimensions)
        : new Vec0Vectors(database, `search_vec_${quantization}_${dimensions}`, dimensions, quantization);
    this.table = this.store instanceof BinaryVectors ? this.store.codes : this.store.table;
    database.prepare("INSERT OR IGNORE INTO search_vector_tables (name) VALUES (?)").run(this.table);
    this.forgetOtherModels(database);
    this.statements = {
      setModel: database.prepare("UPDATE search_docs SET vector_model = ? WHERE id = ?"),
      pending: database.prepare(
        `SELECT id, scope_id, text FROM search_docs WHERE vector_model IS NULL ORDER BY id LIMIT ?`,
      ),
      pendingCount: database.prepare(
        "SELECT COUNT(*) FROM (SELECT 1 FROM search_docs WHERE vector_model IS NULL LIMIT ?)",
      ),
    };
  }

  /**
   * One embedder at a time: vectors of another model (or size) are never compared with this one's.
   * When the model or size changes, every vector table is emptied and every document becomes
   * pending, so embedPending() re-embeds them all. When only the storage kind or code scheme
   * changes (float to binary, the default since 2026-12-01), the stored float vectors are moved
   * into this store's tables in one transaction: nothing is re-embedded (binary codes cost about
   * 0.5 ms each for a dense 384-dimension vector on a busy core: 5 s per 10,000 memories, once).
   */
  private forgetOtherModels(database: SqliteDatabase): void {
    const scheme = this.quantization === "binary" ? `${CODE_SCHEME}/${CODE_BITS}` : this.quantization;
    const configuration = `${this.model}\u0000${this.dimensions}\u0000${scheme}`;
    const current = database
      .prepare("SELECT value FROM search_state WHERE key = 'vector_configuration'")
      .pluck()
      .get() as string | undefined;
    if (current === configuration) return;
    const [model, dimensions, previousScheme] = current?.split("\u0000") ?? [];
    const sameVectors =
      model === this.model && Number(dimensions) === this.dimensions && previousScheme !== undefined;
    database.transaction(() => {
      if (sameVectors) {
        const from = kindOfScheme(previousScheme);
        forEachStoredVector(database, from, this.dimensions, (page) => {
          for (const stored of page) this.store.put(stored.id, stored.scopeId, stored.vector);
        });
      }
      // Tables of another kind are dropped, not emptied: a vec0 table keeps its chunks' bytes, and
      // SQLite's secure_delete zeroes only freed pages, so no vector outlives a later forget there.
      const kept = new Set(this.store.tables);
      const tables = database.prepare("SELECT name FROM search_vector_tables").pluck().all() as string[];
      for (const table of tables) {
        if (kept.has(table)) continue;
        database.exec(`DROP TABLE IF EXISTS ${table}`);
        database.prepare("DELETE FROM search_vector_tables WHERE name = ?").run(table);
      }
      if (!sameVectors) {
        for (const table of kept) database.exec(`DELETE FROM ${table}`);
        database.exec("UPDATE search_docs SET vector_model = NULL WHERE vector_model IS NOT NULL");
      }
      database
        .prepare("INSERT OR REPLACE INTO search_state (key, value) VALUES ('vector_configuration', ?)")
        .run(configuration);
    })();
  }

  /** Stores (or replaces) one document's vector. In the caller's transaction. */
  put(documentId: number, scopeId: number, vector: Float32Array): void {
    this.store.put(documentId, scopeId, vector);
    this.statements.setModel.run(this.model, documentId);
  }

  /** Documents without a vector from this model, oldest first. */
  pending(limit: number): { id: number; scope_id: number; text: string }[] {
    return this.statements.pending.all(limit) as { id: number; scope_id: number; text: string }[];
  }

  pendingCount(limit: number): number {
    return Number(this.statements.pendingCount.pluck().get(limit));
  }

  /**
   * The `limit` nearest documents of the scopes, by cosine similarity, best first. `everyScope`: the
   * scopes hold every document, so nothing needs filtering. `documents`: how many the scopes hold
   * (the binary scan rescores more candidates in a larger store).
   */
  search(
    query: Float32Array,
    scopeIds: readonly number[],
    limit: number,
    everyScope = false,
    documents = 0,
  ): VectorResult[] {
    this.mapForSearch();
    const results =
      this.store instanceof BinaryVectors
        ? this.store.search(query, scopeIds, limit, everyScope, documents)
        : this.store.search(query, scopeIds, limit);
    return bestFirst(results, limit);
  }

  /**
   * Reads of this connection through a memory map rather than read() calls into the page cache, from
   * the first search on. A binary search scans every code (11 MB at 100,000 documents) and the default
   * 2 MB page cache holds none of them after the lexical stage's reads: mapped, a hybrid query cost
   * 40% less CPU (BENCHMARKS.md, "Hybrid search at 100,000"). SQLite maps at most VECTOR_MMAP_BYTES of
   * the file (what lies beyond is read as before), and the mapped pages a process touches count in its
   * resident memory: not before the first search, so embedding a whole store (which reads every
   * document's text) does not map it all.
   */
  private mapForSearch(): void {
    if (this.mapped) return;
    if (Number(this.database.pragma("mmap_size", { simple: true })) < VECTOR_MMAP_BYTES)
      this.database.pragma(`mmap_size = ${VECTOR_MMAP_BYTES}`);
    this.mapped = true;
  }

  /** search() by comparing the query with every stored float vector (what quantization loses). */
  searchExact(query: Float32Array, scopeIds: readonly number[], limit: number): VectorResult[] {
    return bestFirst(this.store.searchExact(query, scopeIds, limit), limit);
  }
}

function bestFirst(results: VectorResult[], limit: number): VectorResult[] {
  results.sort((a, b) => b.similarity - a.similarity || a.documentId - b.documentId);
  return results.slice(0, limit);
}
