import { connect, SCHEMA_VERSION, type SqliteDatabase, schemaVersion } from "./connection.js";
import { DatabaseVersionError } from "./errors.js";
import { migrations } from "./migrations/index.js";

export { type SqliteDatabase, schemaVersion } from "./connection.js";
export { DatabaseVersionError } from "./errors.js";

/**
 * Opens (creating if needed) the one Mercury database and brings its schema up to date.
 * Pass ":memory:" for tests: the same migrations run, nothing touches disk.
 * (`openCurrentDatabase` in connection.ts skips loading the migrations when none are due.)
 */
export function openDatabase(path: string): SqliteDatabase {
  const database = connect(path);
  try {
    migrate(database, path);
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

let migratedMemoryDatabase: Buffer | undefined;

/**
 * An in-memory database at the latest schema. The migrations run on the first call in a process;
 * later calls open a copy of that result (SQLite's serialize and deserialize): the same bytes the
 * migrations wrote, in well under a millisecond instead of the ~20 to 40 ms of running every
 * migration again. Tests and the statement-pair benchmarks open thousands of these.
 */
export function openMemoryDatabase(): SqliteDatabase {
  if (migratedMemoryDatabase !== undefined) return connect(migratedMemoryDatabase);
  const database = openDatabase(":memory:");
  migratedMemoryDatabase = database.serialize();
  return database;
}

export function latestSchemaVersion(): number {
  return migrations.length;
}

function migrate(database: SqliteDatabase, path: string): void {
  if (migrations.length !== SCHEMA_VERSION) {
    throw new Error(
      `storage/connection.ts says SCHEMA_VERSION = ${SCHEMA_VERSION} but there are ${migrations.length} migrations: set it to ${migrations.length}`,
    );
  }
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `migration "${migration.name}" has version ${migration.version}, expected ${index + 1}`,
      );
    }
  });
  const latest = latestSchemaVersion();
  if (schemaVersion(database) === latest) return;
  // Foreign keys are off while migrating (SQLite's procedure for rebuilding a table; they cannot be
  // switched inside a transaction) and checked before the commit.
  database.pragma("foreign_keys = OFF");
  try {
    // The write lock first, then the version: several processes opening a fresh home at once each
    // wait for the lock and see the migrations the first one applied, instead of re-running them.
    database.exec("BEGIN IMMEDIATE");
    try {
      const current = schemaVersion(database);
      if (current > latest) {
        throw new DatabaseVersionError(
          `${path} has schema version ${current}, but this Mercury only knows up to ${latest}: it was written by a newer version. ` +
            "Upgrade Mercury (npm install -g mercury-agent@latest), or point MERCURY_HOME at another directory.",
        );
      }
      for (const migration of migrations.slice(current)) {
        migration.up(database);
        database.pragma(`user_version = ${migration.version}`);
      }
      const broken = database.pragma("foreign_key_check") as unknown[];
      if (broken.length > 0)
        throw new Error(`migration left ${broken.length} row(s) with a broken foreign key; rolled back`);
      database.exec("COMMIT");
    } catch (error) {
      if (database.inTransaction) database.exec("ROLLBACK");
      throw error;
    }
  } finally {
    database.pragma("foreign_keys = ON");
  }
}
