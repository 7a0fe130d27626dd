import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import {
  DatabaseVersionError,
  latestSchemaVersion,
  openDatabase,
  openMemoryDatabase,
  schemaVersion,
} from "../../src/storage/database.js";

describe("database and migrations", () => {
  it("creates every table on a fresh database and records the version", () => {
    const database = openMemoryDatabase();
    expect(schemaVersion(database)).toBe(latestSchemaVersion());
    const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining(["sessions", "messages", "usage_records"]),
    );
    expect(database.pragma("foreign_keys", { simple: true })).toBe(1);
  });

  it("opens each later in-memory database as its own copy of the migrated one: same schema, own rows, foreign keys on", () => {
    const first = openMemoryDatabase();
    const second = openMemoryDatabase();
    try {
      const schema = (database: Database.Database) =>
        database.prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").all();
      expect(schemaVersion(second)).toBe(latestSchemaVersion());
      expect(schema(second)).toEqual(schema(first));
      expect(second.pragma("foreign_keys", { simple: true })).toBe(1);
      second.exec("CREATE TABLE copy_probe (id INTEGER)");
      second.exec("INSERT INTO copy_probe VALUES (1)");
      const third = openMemoryDatabase();
      try {
        const probes = (database: Database.Database) =>
          database.prepare("SELECT name FROM sqlite_master WHERE name = 'copy_probe'").all();
        expect(probes(second)).toHaveLength(1);
        expect(probes(first)).toEqual([]);
        expect(probes(third)).toEqual([]);
      } finally {
        third.close();
      }
    } finally {
      first.close();
      second.close();
    }
  });

  it("uses WAL on disk and reopens without re-running migrations", () => {
    const path = join(mkdtempSync(join(tmpdir(), "mercury-db-")), "mercury.db");
    const first = openDatabase(path);
    expect(first.pragma("journal_mode", { simple: true })).toBe("wal");
    first.prepare("INSERT INTO settings (key, value) VALUES ('k', 'v')").run();
    first.close();
    const second = openDatabase(path);
    expect(second.prepare("SELECT value FROM settings WHERE key = 'k'").get()).toEqual({ value: "v" });
    expect(schemaVersion(second)).toBe(latestSchemaVersion());
    second.close();
  });

  it("refuses a database written by a newer version, with a clear message", () => {
    const path = join(mkdtempSync(join(tmpdir(), "mercury-db-")), "mercury.db");
    const raw = new Database(path);
    raw.pragma(`user_version = ${latestSchemaVersion() + 5}`);
    raw.close();
    expect(() => openDatabase(path)).toThrow(DatabaseVersionError);
    expect(() => openDatabase(path)).toThrow(/written by a newer version/);
  });

  it("rolls a failing migration back and leaves the version unchanged", () => {
    const path = join(mkdtempSync(join(tmpdir(), "mercury-db-")), "mercury.db");
    const raw = new Database(path);
    raw.exec(
      "CREATE TABLE sessions (id TEXT PRIMARY KEY, user_key TEXT NOT NULL, channel TEXT NOT NULL, title TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)",
    );
    raw.close();
    // A version-0 file that already has a conflicting table fails loudly and is left unchanged.
    expect(() => openDatabase(path)).toThrow(/already exists/);
    const check = new Database(path);
    expect(check.pragma("user_version", { simple: true })).toBe(0);
    check.close();
  });
});
