import type { SqliteDatabase } from "../../storage/database.js";
import { loadVectorExtension } from "./sqlite-vec.js";

// Apart from vectors.ts: every index write deletes the old vectors, and an index without
// embeddings should not load the vector store's code for that (issue 11, memory-command latency).

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
