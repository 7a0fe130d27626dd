import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { connect } from "../../src/storage/connection.js";
import { openSqlite } from "../../src/storage/sqlite-driver.js";

const require = createRequire(import.meta.url);
const addon = require.resolve("better-sqlite3/build/Release/better_sqlite3.node");
const folders: string[] = [];

function folder(): string {
  const path = mkdtempSync(join(tmpdir(), "mercury-driver-"));
  folders.push(path);
  return path;
}

afterEach(() => {
  for (const path of folders.splice(0)) rmSync(path, { recursive: true, force: true });
});

/** The same script on a connection: what a caller can observe of prepare, exec, pragma and transactions. */
function exercise(database: Database.Database): unknown[] {
  const seen: unknown[] = [];
  database.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)");
  const insert = database.prepare("INSERT INTO notes (text) VALUES (?)");
  seen.push(insert.run("tea"), database.prepare("SELECT * FROM notes").all());
  seen.push(database.pragma("user_version", { simple: true }), database.pragma("table_info(notes)"));
  const addTwo = database.transaction((first: string, second: string) => {
    insert.run(first);
    // A nested transaction is a savepoint: its failure undoes only its own writes.
    try {
      database.transaction(() => {
        insert.run("inner");
        insert.run(second);
      })();
    } catch (error) {
      seen.push((error as { code?: string }).code, database.inTransaction);
    }
    return "done";
  });
  seen.push(addTwo("coffee", "tea"), addTwo.immediate("juice", "water"), database.inTransaction);
  expect(() => addTwo("tea", "milk")).toThrow(/UNIQUE/);
  // A promise is refused and the transaction rolled back, as better-sqlite3 does.
  expect(() => database.transaction(() => Promise.resolve(1))()).toThrow(/cannot return a promise/);
  seen.push(database.prepare("SELECT text FROM notes ORDER BY id").pluck().all(), database.inTransaction);
  try {
    database.prepare("SELECT nothing FROM nowhere");
  } catch (error) {
    seen.push(error instanceof Database.SqliteError, (error as { code?: string }).code);
  }
  expect(() => database.pragma("user_version", { simple: "yes" as unknown as boolean })).toThrow(
    /"simple" option to be a boolean/,
  );
  database.function("shout", (text: unknown) => `${String(text).toUpperCase()}!`);
  seen.push(database.prepare("SELECT shout(text) FROM notes WHERE id = 1").pluck().get());
  seen.push(database.open, database.memory, database.readonly);
  database.close();
  seen.push(database.open);
  return seen;
}

describe("the light better-sqlite3 driver", () => {
  it("behaves as better-sqlite3's own Database for what Mercury uses", () => {
    expect(exercise(openSqlite(":memory:", addon))).toEqual(exercise(new Database(":memory:")));
    expect(inspect(openSqlite(":memory:", addon))).toBe(inspect(new Database(":memory:")));
  });

  it("opens files (connect uses it), backs up through better-sqlite3's own code, refuses a missing folder", async () => {
    const home = folder();
    const database = connect(join(home, "mercury.db"));
    expect(database.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(database.name).toBe(join(home, "mercury.db"));
    database.exec("CREATE TABLE kept (value TEXT); INSERT INTO kept VALUES ('safe')");
    await database.backup(join(home, "copy.db"));
    database.close();
    const copy = new Database(join(home, "copy.db"), { readonly: true });
    expect(copy.prepare("SELECT value FROM kept").pluck().get()).toBe("safe");
    copy.close();
    expect(() => openSqlite(join(home, "missing", "x.db"), addon)).toThrow(/directory does not exist/);
  });

  it("relies on a better-sqlite3 whose files are where it expects them", () => {
    // The pinned version: the driver repeats lib/database.js and three method files of this version.
    const manifest = JSON.parse(readFileSync(require.resolve("better-sqlite3/package.json"), "utf8")) as {
      version: string;
    };
    const pinned = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.version).toBe(pinned.dependencies["better-sqlite3"]);
    for (const file of [
      "util.js",
      "sqlite-error.js",
      "methods/backup.js",
      "methods/serialize.js",
      "methods/function.js",
      "methods/aggregate.js",
      "methods/table.js",
    ])
      expect(existsSync(require.resolve(`better-sqlite3/lib/${file}`))).toBe(true);
  });
});
