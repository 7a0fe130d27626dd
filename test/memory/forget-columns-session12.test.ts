import { describe, expect, it } from "vitest";
import { scrubEverywhere } from "../../src/memory/store/redaction.js";
import { openMemoryDatabase } from "../../src/storage/database.js";

// Session 12: forget's scrub of the database reads every column that can hold text. Before, only
// columns declared TEXT were read, so a table added later with an untyped, JSON or VARCHAR column (a
// cache, an outbox, a queue) would have kept the forgotten sentence.
describe("forget's database scrub reads every column that may hold text", () => {
  it("untyped, JSON, VARCHAR and TEXT columns are scrubbed; numbers and blobs are left as they are", () => {
    const database = openMemoryDatabase();
    try {
      const secret = "my locker code word is zebraquartz";
      database.exec(
        "CREATE TABLE later_cache (id INTEGER PRIMARY KEY, untyped, json_body JSON, short VARCHAR(200), body TEXT, size INTEGER, raw BLOB)",
      );
      database
        .prepare(
          "INSERT INTO later_cache (untyped, json_body, short, body, size, raw) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .run(
          `note: ${secret}`,
          JSON.stringify({ text: `Remembered: ${secret}` }),
          secret.toUpperCase(),
          `${secret}.`,
          42,
          Buffer.from([0, 1, 2]),
        );
      const changed = scrubEverywhere(database, [secret]);
      expect(changed.get("later_cache")?.length).toBe(4);
      const row = database.prepare("SELECT * FROM later_cache").get() as Record<string, unknown>;
      const texts = [row.untyped, row.json_body, row.short, row.body].map(String);
      for (const text of texts) expect(text.toLowerCase()).not.toContain("zebraquartz");
      expect(row.size).toBe(42);
      expect(row.raw).toEqual(Buffer.from([0, 1, 2]));
    } finally {
      database.close();
    }
  });
});
