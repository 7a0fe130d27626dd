import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";

describe("a memory row damaged outside Mercury", () => {
  it("is one clear line naming the table, row and column and the way back, not a stack trace", {
    timeout: 60_000,
  }, async () => {
    const { home, userHome } = makeHome();
    const added = await runCli(["memory", "add", "I take the train to work"], { home, userHome });
    expect(added.code, added.stderr).toBe(0);
    const database = new Database(join(home, "mercury.db"));
    database.prepare("UPDATE memories SET source_message_ids = 'oops'").run();
    database.close();

    const listed = await runCli(["memory", "list"], { home, userHome });
    expect(listed.code).toBe(2);
    const lines = listed.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /memories row 1 in the database has source_message_ids = "oops", expected a JSON array of whole numbers/,
    );
    expect(lines[0]).toContain("mercury backup restore");
    expect(listed.stderr).not.toMatch(/\n\s+at |unexpected error/);
  });
});
