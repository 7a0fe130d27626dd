import type { SqliteDatabase } from "../../storage/database.js";

/**
 * Moving stored vectors between storage kinds of the same model (vectors.ts): "float" (vec0),
 * "int8" (vec0 with the float vector in an auxiliary column) and "binary" (codes plus the float
 * vectors in a plain table). Every kind keeps the full float vector, so changing the kind (the
 * default went from float to binary on 2026-12-01) re-reads the vectors, never the embedder.
 */
export interface StoredVector {
  id: number;
  scopeId: number;
  vector: Float32Array;
}

/** How a stored configuration names its kind: "float", "int8", or "<code scheme>/<bits>" (binary). */
export function kindOfScheme(scheme: string): "float" | "int8" | "binary" {
  if (scheme === "float" || scheme === "int8") return scheme;
  return "binary";
}

/** Reads a page of ids with their scopes, then each vector by key (vec0 has no range scan by rowid). */
const PAGE = 500;

/**
 * Every vector stored by the `kind` tables of this size, in pages of PAGE, oldest first; `visit` may
 * write (each page is read completely before it is called).
 */
export function forEachStoredVector(
  database: SqliteDatabase,
  kind: "float" | "int8" | "binary",
  dimensions: number,
  visit: (page: StoredVector[]) => void,
): void {
  const sources = {
    float: {
      table: `search_vec_float_${dimensions}`,
      ids: `SELECT rowid AS id, scope_id AS scopeId FROM search_vec_float_${dimensions}`,
      vector: `SELECT embedding FROM search_vec_float_${dimensions} WHERE rowid = ?`,
    },
    int8: {
      table: `search_vec_int8_${dimensions}`,
      ids: `SELECT rowid AS id, scope_id AS scopeId FROM search_vec_int8_${dimensions}`,
      vector: `SELECT full FROM search_vec_int8_${dimensions} WHERE rowid = ?`,
    },
    binary: {
      table: `search_vec_simhash_${dimensions}`,
      ids: `SELECT id, scope_id AS scopeId FROM search_vec_simhash_${dimensions}`,
      vector: `SELECT vector FROM search_vec_full_${dimensions} WHERE id = ?`,
    },
  } as const;
  const source = sources[kind];
  const exists = database.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").pluck().get(source.table);
  if (exists === undefined) return;
  // Ids and scopes only (16 bytes a vector), so a large store is never held in memory at once.
  const keys = database.prepare(source.ids).all() as { id: number | bigint; scopeId: number | bigint }[];
  keys.sort((x, y) => Number(x.id) - Number(y.id));
  const read = database.prepare(source.vector).pluck();
  for (let start = 0; start < keys.length; start += PAGE) {
    const page: StoredVector[] = [];
    for (const key of keys.slice(start, start + PAGE)) {
      const blob = read.get(BigInt(key.id)) as Buffer | undefined;
      if (blob === undefined) continue;
      if (blob.byteLength !== dimensions * 4)
        throw new Error(
          `vector store: vector ${key.id} in ${source.table} has ${blob.byteLength} bytes, expected ${dimensions * 4}`,
        );
      // Copied: the blob's buffer is reused by the next read.
      const vector = new Float32Array(dimensions);
      vector.set(new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength)));
      page.push({ id: Number(key.id), scopeId: Number(key.scopeId), vector });
    }
    visit(page);
  }
}
