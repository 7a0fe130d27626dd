import { describe, expect, it } from "vitest";
import { latestSchemaVersion, openMemoryDatabase, schemaVersion } from "../../../src/storage/database.js";

describe("memory schema (migration 3)", () => {
  it("creates the memory tables", () => {
    const database = openMemoryDatabase();
    expect(schemaVersion(database)).toBe(latestSchemaVersion());
    const tables = (
      database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((row) => row.name);
    for (const table of [
      "episodes",
      "memories",
      "memory_versions",
      "memory_conflicts",
      "extraction_jobs",
      "extraction_failures",
      "memory_tombstones",
    ]) {
      expect(tables).toContain(table);
    }
  });

  it("refuses values outside the fixed sets instead of storing them", () => {
    const database = openMemoryDatabase();
    const insert = (evidence: string, importance: string, kind: string) =>
      database
        .prepare(
          `INSERT INTO memories (user_key, kind, text, wording_evidence, evidence, importance, recorded_at, created_at, updated_at)
           VALUES ('owner', ?, 'x', ?, ?, ?, 't', 't', 't')`,
        )
        .run(kind, evidence, evidence, importance);
    expect(() => insert("vibes", "normal", "fact")).toThrow(/CHECK/);
    expect(() => insert("inferred", "0.93", "fact")).toThrow(/CHECK/);
    expect(() => insert("inferred", "normal", "gossip")).toThrow(/CHECK/);
    expect(() => insert("inferred", "normal", "fact")).not.toThrow();
  });

  it("has no column that could hold a stored confidence score", () => {
    const database = openMemoryDatabase();
    const columns = (database.prepare("PRAGMA table_info(memories)").all() as { name: string }[]).map(
      (row) => row.name,
    );
    expect(columns.filter((name) => /confidence|score/.test(name))).toEqual([]);
  });
});
