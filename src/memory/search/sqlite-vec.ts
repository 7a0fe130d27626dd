import { createRequire } from "node:module";
import type { SqliteDatabase } from "../../storage/database.js";

/**
 * Loading the sqlite-vec extension into a better-sqlite3 connection. The prebuilt library ships in a
 * platform package (sqlite-vec-linux-x64, -darwin-arm64, ...) that npm installs as an optional
 * dependency; on a platform without one, or when it was skipped (`--no-optional`), loading fails and
 * only vector search is unavailable: lexical search never needs the extension.
 */
export class VectorExtensionError extends Error {
  override name = "VectorExtensionError";
}

const loaded = new WeakSet<SqliteDatabase>();

/**
 * The package is required when a vector table is first used, not imported with this module: its ES
 * entry imports `node:process` and `node:url`, ~3-5 ms of every `mercury memory` process (BENCHMARKS.md,
 * memory-command latency) that words-only search never needed. Its CommonJS entry is the same code.
 */
function loadablePath(): string {
  const { getLoadablePath } = createRequire(import.meta.url)("sqlite-vec") as typeof import("sqlite-vec");
  return getLoadablePath();
}

/**
 * Loads sqlite-vec once per connection. Throws VectorExtensionError saying what to do. `path`
 * overrides where the library is looked for (tests of the failure).
 */
export function loadVectorExtension(database: SqliteDatabase, path?: string): void {
  if (loaded.has(database) && path === undefined) return;
  try {
    path ??= loadablePath();
  } catch (error) {
    throw new VectorExtensionError(
      `vector search needs the sqlite-vec extension, which is not available here: ${(error as Error).message} ` +
        `Reinstall with optional dependencies (npm install, without --omit=optional), or unset MERCURY_EMBEDDINGS_PROVIDER to search by words only.`,
    );
  }
  try {
    database.loadExtension(path);
  } catch (error) {
    throw new VectorExtensionError(
      `could not load the sqlite-vec extension from ${path}: ${(error as Error).message}. ` +
        "Reinstall Mercury (npm install) so the platform package matches this machine, or unset MERCURY_EMBEDDINGS_PROVIDER to search by words only.",
    );
  }
  loaded.add(database);
}

/** For `mercury doctor`: the sqlite-vec version, or why it cannot load. */
export function probeVectorExtension(
  database: SqliteDatabase,
): { ok: true; version: string } | { ok: false; error: string } {
  try {
    loadVectorExtension(database);
    const version = database.prepare("SELECT vec_version()").pluck().get();
    return { ok: true, version: String(version) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/**
 * Deletes a document's vector from every vec0 table (a forgotten memory leaves no vector behind,
 * whatever model or quantization wrote it). Needs the extension only when such tables exist, so
 * word-only installations never load it. Here rather than in vectors.ts: every index write deletes
 * the old vectors, and an index without embeddings should not load the vector store's code for that
 * (issue 11, memory-command latency).
 */
export function deleteVectorsOf(database: SqliteDatabase, documentId: number): void {
  const tables = database.prepare("SELECT name FROM search_vector_tables").pluck().all() as string[];
  if (tables.length === 0) return;
  loadVectorExtension(database);
  for (const table of tables)
    database.prepare(`DELETE FROM ${table} WHERE rowid = ?`).run(BigInt(documentId));
}
