import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { DatabaseVersionError } from "./errors.js";
import { migrations } from "./migrations/index.js";

export type SqliteDatabase = Database.Database;

export { DatabaseVersionError } from "./errors.js";

/**
 * Opens (creating if needed) the one Mercury database and brings its schema up to date.
 * Pass ":memory:" for tests: the same migrations run, nothing touches disk.
 */
export function openDatabase(path: string): SqliteDatabase {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const database = new Database(path);
  try {
    if (path !== ":memory:") database.pragma("journal_mode = WAL");
    database.pragma("busy_timeout = 5000");
    database.pragma("foreign_keys = ON");
    database.pragma("synchronous = NORMAL");
    // Deleted rows are overwritten, not left in free pages: `memory forget` must erase from disk.
    database.pragma("secure_delete = ON");
    migrate(database, path);
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

export function openMemoryDatabase(): SqliteDatabase {
  return openDatabase(":memory:");
}

export function schemaVersion(database: SqliteDatabase): number {
  return Number(database.pragma("user_version", { simple: true }));
}

export function latestSchemaVersion(): number {
  return migrations.length;
}

function migrate(database: SqliteDatabase, path: string): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `migration "${migration.name}" has version ${migration.version}, expected ${index + 1}`,
      );
    }
  });
  const current = schemaVersion(database);
  const latest = latestSchemaVersion();
  if (current > latest) {
    throw new DatabaseVersionError(
      `${path} has schema version ${current}, but this Mercury only knows up to ${latest}: it was written by a newer version. ` +
        "Upgrade Mercury (npm install -g mercury-agent@latest), or point MERCURY_HOME at another directory.",
    );
  }
  for (const migration of migrations.slice(current)) {
    const apply = database.transaction(() => {
      migration.up(database);
      database.pragma(`user_version = ${migration.version}`);
    });
    apply();
  }
}
