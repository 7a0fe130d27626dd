import type Database from "better-sqlite3";

export interface Migration {
  version: number;
  name: string;
  /** Runs inside a transaction; throw to roll the whole migration back. */
  up(database: Database.Database): void;
}
