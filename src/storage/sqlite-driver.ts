import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type DatabaseModule from "better-sqlite3";

/**
 * better-sqlite3's `Database` built over its compiled addon without loading the package's thirteen
 * JavaScript files: on Node 20 each CommonJS file is resolved, read and compiled, ~6 ms for the
 * package, which every `mercury memory` command paid (BENCHMARKS.md, memory-command latency). What
 * every connection uses — open, prepare, exec, pragma, transaction, close, the extension loader — is
 * here, written as better-sqlite3 12.11.1 writes it (lib/database.js, lib/methods/{wrappers,
 * pragma,transaction}.js, MIT, © Joshua Wise); the rest (backup, serialize, function, aggregate,
 * table) is better-sqlite3's own code, required on first use. Statements are the addon's, as
 * always. The version is pinned in package.json; test/storage/sqlite-driver.test.ts checks the
 * package still has the shape this relies on.
 */

const require = createRequire(import.meta.url);

type SqliteDatabase = DatabaseModule.Database;
type Statement = DatabaseModule.Statement;

interface NativeDatabase {
  prepare(sql: string, database: unknown, pragmaMode: boolean): Statement;
  exec(sql: string): void;
  close(): void;
  loadExtension(...args: unknown[]): void;
  defaultSafeIntegers(...args: unknown[]): void;
  unsafeMode(...args: unknown[]): void;
  readonly name: string;
  readonly open: boolean;
  readonly inTransaction: boolean;
  readonly readonly: boolean;
  readonly memory: boolean;
}

interface Addon {
  isInitialized?: boolean;
  setErrorConstructor(errorClass: unknown): void;
  Database: new (
    filename: string,
    filenameGiven: string,
    anonymous: boolean,
    readonly: boolean,
    fileMustExist: boolean,
    timeout: number,
    verbose: null,
    buffer: null,
  ) => NativeDatabase;
}

const NATIVE = Symbol("better-sqlite3 native database");

/** better-sqlite3's lib/util.js: its methods find the native database under `cppdb`. */
interface LibraryUtil {
  cppdb: symbol;
}

type LibraryMethod = (this: unknown, ...args: unknown[]) => unknown;

function libraryMethod(name: "backup" | "serialize" | "function" | "aggregate" | "table"): LibraryMethod {
  return require(`better-sqlite3/lib/methods/${name}.js`) as LibraryMethod;
}

interface Controller {
  begin: Statement;
  commit: Statement;
  rollback: Statement;
  savepoint: Statement;
  release: Statement;
  rollbackTo: Statement;
}

type Controllers = Record<"default" | "deferred" | "immediate" | "exclusive", Controller>;

const controllers = new WeakMap<NativeDatabase, Controllers>();

/** An object named as better-sqlite3's inspection object is (the class takes the key's name). */
const { Database: DatabaseInspection } = { Database: class {} };

class LightDatabase {
  declare readonly [NATIVE]: NativeDatabase;

  constructor(filename: string, addon: Addon) {
    if (!addon.isInitialized) {
      // The error class better-sqlite3 itself registers, so errors are its `SqliteError`.
      addon.setErrorConstructor(require("better-sqlite3/lib/sqlite-error.js"));
      addon.isInitialized = true;
    }
    const trimmed = filename.trim();
    const anonymous = trimmed === "" || trimmed === ":memory:";
    if (!anonymous && !trimmed.startsWith("file:") && !existsSync(dirname(trimmed)))
      throw new TypeError("Cannot open database because the directory does not exist");
    const native = new addon.Database(trimmed, filename, anonymous, false, false, 5000, null, null);
    Object.defineProperty(this, NATIVE, { value: native });
  }

  get name(): string {
    return this[NATIVE].name;
  }
  get open(): boolean {
    return this[NATIVE].open;
  }
  get inTransaction(): boolean {
    return this[NATIVE].inTransaction;
  }
  get readonly(): boolean {
    return this[NATIVE].readonly;
  }
  get memory(): boolean {
    return this[NATIVE].memory;
  }

  prepare(sql: string): Statement {
    return this[NATIVE].prepare(sql, this, false);
  }

  exec(sql: string): this {
    this[NATIVE].exec(sql);
    return this;
  }

  close(): this {
    this[NATIVE].close();
    return this;
  }

  loadExtension(...args: unknown[]): this {
    this[NATIVE].loadExtension(...args);
    return this;
  }

  defaultSafeIntegers(...args: unknown[]): this {
    this[NATIVE].defaultSafeIntegers(...args);
    return this;
  }

  unsafeMode(...args: unknown[]): this {
    this[NATIVE].unsafeMode(...args);
    return this;
  }

  pragma(source: string, options?: { simple?: boolean }): unknown {
    const settings = options ?? {};
    if (typeof source !== "string") throw new TypeError("Expected first argument to be a string");
    if (typeof settings !== "object") throw new TypeError("Expected second argument to be an options object");
    const simple: unknown = "simple" in settings ? settings.simple : false;
    if (typeof simple !== "boolean") throw new TypeError('Expected the "simple" option to be a boolean');
    const statement = this[NATIVE].prepare(`PRAGMA ${source}`, this, true);
    return simple ? statement.pluck().get() : statement.all();
  }

  transaction(fn: (...args: unknown[]) => unknown): unknown {
    if (typeof fn !== "function") throw new TypeError("Expected first argument to be a function");
    const native = this[NATIVE];
    const controller = controllerOf(native, this);
    const properties: PropertyDescriptorMap = {
      default: { value: wrapTransaction(fn, native, controller.default) },
      deferred: { value: wrapTransaction(fn, native, controller.deferred) },
      immediate: { value: wrapTransaction(fn, native, controller.immediate) },
      exclusive: { value: wrapTransaction(fn, native, controller.exclusive) },
      database: { value: this, enumerable: true },
    };
    for (const key of ["default", "deferred", "immediate", "exclusive"])
      Object.defineProperties(properties[key]?.value, properties);
    return properties.default?.value;
  }

  backup(...args: unknown[]): unknown {
    return this.library("backup", args);
  }
  serialize(...args: unknown[]): unknown {
    return this.library("serialize", args);
  }
  function(...args: unknown[]): unknown {
    return this.library("function", args);
  }
  aggregate(...args: unknown[]): unknown {
    return this.library("aggregate", args);
  }
  table(...args: unknown[]): unknown {
    return this.library("table", args);
  }

  /** As better-sqlite3's `Database` shows itself in `console.log` and `util.inspect`. */
  [Symbol.for("nodejs.util.inspect.custom")](): object {
    return Object.assign(new DatabaseInspection(), {
      name: this.name,
      open: this.open,
      inTransaction: this.inTransaction,
      readonly: this.readonly,
      memory: this.memory,
    });
  }

  /** A method left to better-sqlite3's own file, which reads the native database under its symbol. */
  private library(name: Parameters<typeof libraryMethod>[0], args: unknown[]): unknown {
    const { cppdb } = require("better-sqlite3/lib/util.js") as LibraryUtil;
    if (!Object.hasOwn(this, cppdb)) Object.defineProperty(this, cppdb, { value: this[NATIVE] });
    return libraryMethod(name).apply(this, args);
  }
}

function controllerOf(native: NativeDatabase, database: LightDatabase): Controllers {
  let controller = controllers.get(native);
  if (!controller) {
    const prepare = (sql: string) => native.prepare(sql, database, false);
    const shared = {
      commit: prepare("COMMIT"),
      rollback: prepare("ROLLBACK"),
      savepoint: prepare("SAVEPOINT `\t_bs3.\t`"),
      release: prepare("RELEASE `\t_bs3.\t`"),
      rollbackTo: prepare("ROLLBACK TO `\t_bs3.\t`"),
    };
    controller = {
      default: { begin: prepare("BEGIN"), ...shared },
      deferred: { begin: prepare("BEGIN DEFERRED"), ...shared },
      immediate: { begin: prepare("BEGIN IMMEDIATE"), ...shared },
      exclusive: { begin: prepare("BEGIN EXCLUSIVE"), ...shared },
    };
    controllers.set(native, controller);
  }
  return controller;
}

function wrapTransaction(
  fn: (...args: unknown[]) => unknown,
  native: NativeDatabase,
  { begin, commit, rollback, savepoint, release, rollbackTo }: Controller,
) {
  return function sqliteTransaction(this: unknown, ...args: unknown[]): unknown {
    const nested = native.inTransaction;
    const before = nested ? savepoint : begin;
    const after = nested ? release : commit;
    const undo = nested ? rollbackTo : rollback;
    before.run();
    try {
      const result = Reflect.apply(fn, this, args);
      if (result && typeof (result as { then?: unknown }).then === "function")
        throw new TypeError("Transaction function cannot return a promise");
      after.run();
      return result;
    } catch (error) {
      if (native.inTransaction) {
        undo.run();
        if (undo !== rollback) after.run();
      }
      throw error;
    }
  };
}

/** A connection to `filename` (a path, or ":memory:") through the addon at `addonPath`. */
export function openSqlite(filename: string, addonPath: string): SqliteDatabase {
  const addon = require(addonPath) as Addon;
  return new LightDatabase(filename, addon) as unknown as SqliteDatabase;
}
