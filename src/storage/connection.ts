import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type DatabaseModule from "better-sqlite3";

// Not named `require`: the memory fast path's CommonJS copy (tsconfig.fast.json) has a `require` of its own.
const requirePackage = createRequire(import.meta.url);
/**
 * better-sqlite3 is CommonJS. Imported as an ES module, Node first scans its files' source for the
 * names they export (index.js re-exports database.js, so both are lexed), then requires it anyway:
 * ~2 ms of every `mercury memory` command (BENCHMARKS.md, memory-command latency). Required
 * directly, only the require remains. Same module, same class.
 */
const Database = requirePackage("better-sqlite3") as typeof DatabaseModule;

export type SqliteDatabase = DatabaseModule.Database;

/**
 * The schema version this build writes: the number of migrations in storage/migrations/index.ts.
 * Kept here as a number so that opening a database whose schema is current does not load the
 * migrations (thirteen modules the memory commands would pay for on every run); the migration runner
 * refuses to run when the two disagree, so a new migration cannot forget to raise it.
 */
export const SCHEMA_VERSION = 12;

/**
 * Opens (creating if needed) the file with Mercury's connection settings, without any schema work.
 * Pass ":memory:" for an in-memory database.
 */
export function connect(path: string | Buffer): SqliteDatabase {
  // A Buffer is a serialized database, opened in memory (openMemoryDatabase's migrated copy).
  const inMemory = typeof path !== "string" || path === ":memory:";
  if (!inMemory) mkdirSync(dirname(path), { recursive: true });
  const binding = nativeBinding();
  const database = binding === null ? new Database(path) : new Database(path, { nativeBinding: binding });
  try {
    // The busy timeout first: switching a fresh file to WAL takes a lock another process may hold.
    // Deleted rows are overwritten, not left in free pages (secure_delete): `memory forget` must
    // erase from disk. One exec for all of them: each separate pragma call is a statement to prepare.
    database.exec(
      `PRAGMA busy_timeout = 5000;${inMemory ? "" : " PRAGMA journal_mode = WAL;"}
       PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON;`,
    );
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

let bindingPath: string | null | undefined;

/**
 * Where npm's install of better-sqlite3 put its compiled addon. Without it, better-sqlite3 asks the
 * `bindings` package, which reads a stack trace to find the caller and tries a dozen paths: ~4 ms of
 * each `mercury memory` command (BENCHMARKS.md, memory-command latency). Elsewhere (a build of its
 * own in another folder), null: `bindings` searches as before.
 */
function nativeBinding(): string | null {
  if (bindingPath !== undefined) return bindingPath;
  try {
    bindingPath = requirePackage.resolve("better-sqlite3/build/Release/better_sqlite3.node");
  } catch (error) {
    if (!(error instanceof Error && "code" in error && error.code === "MODULE_NOT_FOUND")) throw error;
    bindingPath = null;
  }
  return bindingPath;
}

export function schemaVersion(database: SqliteDatabase): number {
  return Number(database.pragma("user_version", { simple: true }));
}

/**
 * The database, opened without loading the migrations when its schema is already current (the
 * case of every command but the first after an upgrade). Anything else — a new file, an older or a
 * newer schema — goes through `openDatabase`, which migrates or refuses with its usual errors.
 */
export async function openCurrentDatabase(path: string): Promise<SqliteDatabase> {
  const database = connect(path);
  let current: boolean;
  try {
    current = schemaVersion(database) === SCHEMA_VERSION;
  } catch (error) {
    database.close();
    throw error;
  }
  if (current) return database;
  database.close();
  const { openDatabase } = await import("./database.js");
  return openDatabase(path);
}
