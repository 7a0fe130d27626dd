import type { SqliteDatabase } from "../../storage/database.js";
import { loadVectorExtension } from "./sqlite-vec.js";

/**
 * Embedding vectors in a sqlite-vec `vec0` table, one row per document (rowid = search_docs.id),
 * partitioned by scope (search_scopes.id) so a search reads only the vectors it may see. Inserts and
 * deletes are single rows in the caller's transaction: nothing is cached or reloaded.
 *
 * Quantization (optional): "int8" (a byte per dimension) or "binary" (a bit per dimension) make the
 * k-nearest-neighbour scan cheaper; the float vector is kept in an auxiliary column and the best
 * RESCORE_FACTOR x k candidates are rescored by exact cosine, so the order returned is the float one.
 */
export type Quantization = "float" | "int8" | "binary";

export const RESCORE_FACTOR = 8;

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

export class VectorStore {
  readonly table: string;
  private readonly statements;

  constructor(
    database: SqliteDatabase,
    readonly model: string,
    readonly dimensions: number,
    readonly quantization: Quantization = "float",
  ) {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 8192)
      throw new RangeError(`vector dimensions must be an integer in [1, 8192], got ${dimensions}`);
    if (quantization === "binary" && dimensions % 8 !== 0)
      throw new RangeError(`binary quantization needs dimensions divisible by 8, got ${dimensions}`);
    loadVectorExtension(database);
    this.table = `search_vec_${quantization}_${dimensions}`;
    const column =
      quantization === "float"
        ? `embedding float[${dimensions}] distance_metric=cosine`
        : quantization === "int8"
          ? `embedding int8[${dimensions}] distance_metric=cosine, +full blob`
          : `embedding bit[${dimensions}], +full blob`;
    database.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${this.table} USING vec0(scope_id integer partition key, ${column})`,
    );
    database.prepare("INSERT OR IGNORE INTO search_vector_tables (name) VALUES (?)").run(this.table);
    this.forgetOtherModels(database);
    const encodedQuery =
      quantization === "float"
        ? "?"
        : quantization === "int8"
          ? "vec_quantize_int8(?, 'unit')"
          : "vec_quantize_binary(?)";
    this.statements = {
      insert:
        quantization === "float"
          ? database.prepare(
              `INSERT INTO ${this.table} (rowid, scope_id, embedding) VALUES (@id, @scope, @vector)`,
            )
          : database.prepare(
              `INSERT INTO ${this.table} (rowid, scope_id, embedding, full) VALUES (@id, @scope, ${encodedQuery.replace("?", "@vector")}, @vector)`,
            ),
      delete: database.prepare(`DELETE FROM ${this.table} WHERE rowid = ?`),
      knn: database.prepare(
        `SELECT rowid AS documentId, distance FROM ${this.table}
         WHERE embedding MATCH ${encodedQuery} AND k = ? AND scope_id = ?`,
      ),
      full:
        quantization === "float"
          ? undefined
          : database.prepare(
              `SELECT rowid AS documentId, full FROM ${this.table} WHERE rowid IN (SELECT value FROM json_each(?))`,
            ),
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
   * One embedder at a time: vectors of another model (or size, or quantization) are never compared
   * with this one's. When the configuration changes, every vector table is emptied and every
   * document becomes pending, so embedPending() re-embeds them all.
   */
  private forgetOtherModels(database: SqliteDatabase): void {
    const configuration = `${this.model}\u0000${this.dimensions}\u0000${this.quantization}`;
    const current = database
      .prepare("SELECT value FROM search_state WHERE key = 'vector_configuration'")
      .pluck()
      .get();
    if (current === configuration) return;
    database.transaction(() => {
      const tables = database.prepare("SELECT name FROM search_vector_tables").pluck().all() as string[];
      for (const table of tables) database.exec(`DELETE FROM ${table}`);
      database.exec("UPDATE search_docs SET vector_model = NULL WHERE vector_model IS NOT NULL");
      database
        .prepare("INSERT OR REPLACE INTO search_state (key, value) VALUES ('vector_configuration', ?)")
        .run(configuration);
    })();
  }

  /** Stores (or replaces) one document's vector. In the caller's transaction. */
  put(documentId: number, scopeId: number, vector: Float32Array): void {
    const id = BigInt(documentId);
    this.statements.delete.run(id);
    this.statements.insert.run({ id, scope: BigInt(scopeId), vector: vectorBlob(vector) });
    this.statements.setModel.run(this.model, documentId);
  }

  /** Documents without a vector from this model, oldest first. */
  pending(limit: number): { id: number; scope_id: number; text: string }[] {
    return this.statements.pending.all(limit) as { id: number; scope_id: number; text: string }[];
  }

  pendingCount(limit: number): number {
    return Number(this.statements.pendingCount.pluck().get(limit));
  }

  /** The `limit` nearest documents of the scopes, by cosine similarity, best first. */
  search(query: Float32Array, scopeIds: readonly number[], limit: number): VectorResult[] {
    const k = this.quantization === "float" ? limit : limit * RESCORE_FACTOR;
    const found: { documentId: number; distance: number }[] = [];
    for (const scopeId of scopeIds) {
      found.push(
        ...(this.statements.knn.all(vectorBlob(query), k, BigInt(scopeId)) as {
          documentId: number;
          distance: number;
        }[]),
      );
    }
    let results: VectorResult[];
    if (this.statements.full === undefined) {
      results = found.map((row) => ({ documentId: row.documentId, similarity: 1 - row.distance }));
    } else {
      let queryNorm = 0;
      for (const value of query) queryNorm += value * value;
      const rows = this.statements.full.all(JSON.stringify(found.map((row) => row.documentId))) as {
        documentId: number;
        full: Buffer;
      }[];
      results = rows.map((row) => ({
        documentId: row.documentId,
        similarity: cosine(query, queryNorm, row.full),
      }));
    }
    results.sort((a, b) => b.similarity - a.similarity || a.documentId - b.documentId);
    return results.slice(0, limit);
  }
}

/**
 * Deletes a document's vector from every vec0 table (a forgotten memory leaves no vector behind,
 * whatever model or quantization wrote it). Needs the extension only when such tables exist, so
 * word-only installations never load it.
 */
export function deleteVectorsOf(database: SqliteDatabase, documentId: number): void {
  const tables = database.prepare("SELECT name FROM search_vector_tables").pluck().all() as string[];
  if (tables.length === 0) return;
  loadVectorExtension(database);
  for (const table of tables)
    database.prepare(`DELETE FROM ${table} WHERE rowid = ?`).run(BigInt(documentId));
}
