import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";
import { filesUnder } from "../helpers/memory-facts.js";

/** Files under the home whose bytes hold `text` (any case). */
function holding(home: string, text: string): string[] {
  return filesUnder(home).filter((path) =>
    readFileSync(path).toString("latin1").toLowerCase().includes(text.toLowerCase()),
  );
}

// `memory add|search` end without closing the database (memory-fast.ts): no checkpoint at exit,
// the WAL stays for the next process. What must still hold: what was reported stored is read back
// by the next process, the exit code and the whole output arrive, and `memory forget` erases the
// text from every file, the WAL included.
describe("memory add|search end without a checkpoint", () => {
  it("a reported add is read back by the next process, and forget erases it from the kept WAL", {
    timeout: 120_000,
  }, async () => {
    const secret = "quokkamarble";
    const { home, userHome } = makeHome();
    const added = await runCli(["memory", "add", "--json", `My bike lock code word is ${secret}`], {
      home,
      userHome,
    });
    expect(added.code).toBe(0);
    const stored = JSON.parse(added.stdout) as { action: string; memory: { id: number } };
    expect(stored.action).toBe("created");
    // The commit is in the WAL the process left (synced before the line was printed), not yet in
    // mercury.db: the exit did not checkpoint.
    const wal = join(home, "mercury.db-wal");
    expect(existsSync(wal)).toBe(true);
    expect(statSync(wal).size).toBeGreaterThan(0);
    expect(holding(home, secret)).toContain(wal);

    // Another process reads the WAL back.
    const other = await runCli(["memory", "add", "My bike is a blue touring bike"], { home, userHome });
    expect(other.code).toBe(0);
    expect(other.stdout).toMatch(/^Remembered: My bike is a blue touring bike \(#\d+\)/);
    const search = await runCli(["memory", "search", "--json", secret], { home, userHome });
    expect(search.code).toBe(0);
    const found = JSON.parse(search.stdout) as { results: { id: number; text: string }[] };
    expect(found.results.map((result) => result.id)).toEqual([stored.memory.id]);

    // A refused line still exits with its code after its message is out.
    const refused = await runCli(["memory", "add", "--kind", "rumour", "something"], { home, userHome });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--kind must be one of");

    const forgotten = await runCli(["memory", "forget", String(stored.memory.id)], { home, userHome });
    expect(forgotten.code).toBe(0);
    expect(holding(home, secret)).toEqual([]);
    const again = await runCli(["memory", "search", "--json", secret], { home, userHome });
    expect((JSON.parse(again.stdout) as { results: unknown[] }).results).toEqual([]);
    const kept = await runCli(["memory", "search", "--json", "touring", "bike"], { home, userHome });
    expect((JSON.parse(kept.stdout) as { results: { text: string }[] }).results[0]?.text).toBe(
      "My bike is a blue touring bike",
    );
  });
});
