import { join } from "node:path";
import Database from "better-sqlite3";

/** One row of a query on a home's ledger (mercury.db), opened read-only while Mercury may still run. */
export function query<T>(home: string, sql: string, ...params: string[]): T {
  const database = new Database(join(home, "mercury.db"), { readonly: true });
  try {
    return database.prepare(sql).get(...params) as T;
  } finally {
    database.close();
  }
}

export function latestTask(home: string): { id: string; session_id: string; status: string } {
  return query(home, "SELECT id, session_id, status FROM tasks ORDER BY rowid DESC LIMIT 1");
}
