import { existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openMemoryCoreForCli } from "../../src/app/memory-cli.js";

const WORDS = "amber basalt cobalt dahlia ember fjord garnet harbor indigo juniper kelp lagoon".split(" ");

/** A long statement no other one repeats (so each add creates a memory). */
function statement(index: number): string {
  const words = Array.from(
    { length: 120 },
    (_, at) => `${WORDS[(index * 7 + at) % WORDS.length]}${index}x${at}`,
  );
  return `Note ${index}: ${words.join(" ")}`;
}

// `memory add|search` end with `finish()` and `process.exit` (memory-fast.ts): the database is left
// open, WAL and all, unless the WAL has grown past ~1 MB, when it is closed — and so checkpointed.
describe("openMemoryCoreForCli().finish", () => {
  it("leaves a short WAL for the next process and checkpoints a long one", { timeout: 120_000 }, async () => {
    const home = mkdtempSync(join(tmpdir(), "mercury-finish-"));
    const env = { MERCURY_HOME: home };
    const wal = join(home, "mercury.db-wal");
    const remember = (service: Awaited<ReturnType<typeof openMemoryCoreForCli>>["service"], index: number) =>
      service.remember({
        userKey: "owner",
        text: statement(index),
        kind: "fact",
        importance: "normal",
        evidence: "manual",
      });

    const first = await openMemoryCoreForCli({ env });
    await remember(first.service, 0);
    first.finish();
    expect(first.service.database.open).toBe(true);
    expect(statSync(wal).size).toBeGreaterThan(0);
    expect(statSync(wal).size).toBeLessThan(1024 * 1024);
    first.close();

    const second = await openMemoryCoreForCli({ env });
    let stored = 1;
    while (!existsSync(wal) || statSync(wal).size <= 1024 * 1024) {
      await remember(second.service, stored);
      stored++;
      expect(stored).toBeLessThan(2_000);
    }
    second.finish();
    // Closed by finish: the only connection, so SQLite checkpointed the WAL into mercury.db and removed it.
    expect(second.service.database.open).toBe(false);
    expect(existsSync(wal)).toBe(false);

    const third = await openMemoryCoreForCli({ env });
    expect(third.service.memories.list({ userKey: "owner", limit: 10_000 }).length).toBe(stored);
    third.close();
  });
});
