import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";

interface Listed {
  memories: { id: number; text: string; confirmations: number }[];
}

describe("memory import through the built binary", () => {
  it("importing into a home that already holds a memory confirms its rewording and lists a contradiction", {
    timeout: 120_000,
  }, async () => {
    // No model configured: the conservative deterministic rules consolidate.
    const env = {};
    const other = makeHome();
    for (const text of ["The user lives in Porto", "I am not allergic to peanuts", "I play the cello"]) {
      expect((await runCli(["memory", "add", text], { ...other, env })).code).toBe(0);
    }
    const file = join(other.home, "export.jsonl");
    expect((await runCli(["memory", "export", "--out", file], { ...other, env })).code).toBe(0);

    const home = makeHome();
    for (const text of ["I live in Porto", "I am allergic to peanuts"]) {
      expect((await runCli(["memory", "add", text], { ...home, env })).code).toBe(0);
    }
    const imported = await runCli(["memory", "import", "--json", file], { ...home, env });
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({
      ok: true,
      imported: 3,
      consolidation: { confirmed: 1, superseded: 0, keptExisting: 0, conflicts: 1, queued: 0 },
    });

    const listed = await runCli(["memory", "list", "--json"], { ...home, env });
    const memories = (JSON.parse(listed.stdout) as Listed).memories;
    // Porto once (confirmed), both allergy statements (in conflict), and the new cello fact.
    expect(memories.filter((memory) => memory.text.includes("Porto"))).toEqual([
      expect.objectContaining({ confirmations: 1 }),
    ]);
    expect(memories).toHaveLength(4);
    const conflicts = await runCli(["memory", "conflicts"], { ...home, env });
    expect(conflicts.stdout).toContain("I am allergic to peanuts");
    expect(conflicts.stdout).toContain("I am not allergic to peanuts");

    const text = await runCli(["memory", "import", file], { ...home, env });
    expect(text.stdout).toContain("Imported 0 memories (3 already present");
  });
});
