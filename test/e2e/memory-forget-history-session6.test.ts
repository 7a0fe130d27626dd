import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";
import { filesUnder } from "../helpers/memory-facts.js";

interface Listed {
  memories: { id: number; text: string; supersededAt: string | null }[];
}

describe("forgetting a memory that superseded another and was confirmed in other words", () => {
  it("its words leave every file, the old memory's history, why, --as-of and export; the old fact keeps its own words", async () => {
    const { home, userHome } = makeHome();
    const cli = async (...args: string[]) => {
      const result = await runCli(args, { home, userHome });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      return result.stdout;
    };
    const add = async (text: string) =>
      JSON.parse(await cli("memory", "add", "--json", text)) as { action: string; memory: { id: number } };
    const old = await add("My locker code word is zebraquartz");
    const newer = await add("My locker code word is now walrusmint");
    expect(newer.action).toBe("superseded");
    // The same fact in other words: a confirmation, its wording kept as a version of the newer memory.
    const again = await add("my locker code word is now walrusmint!");
    expect(again).toMatchObject({ action: "confirmed", memory: { id: newer.memory.id } });
    const between = new Date().toISOString();
    expect(await cli("memory", "list", "--as-of", between)).toContain("walrusmint");

    expect(await cli("memory", "forget", String(newer.memory.id))).toContain(
      `Forgotten: memory #${newer.memory.id}`,
    );

    const holding = (word: string) =>
      filesUnder(home).filter((path) => readFileSync(path).toString("latin1").toLowerCase().includes(word));
    expect(holding("walrusmint")).toEqual([]);
    for (const args of [
      ["memory", "why", String(old.memory.id)],
      ["memory", "history", String(old.memory.id)],
      ["memory", "list", "--all"],
      ["memory", "list", "--as-of", between],
      ["memory", "export"],
    ]) {
      expect((await cli(...args)).toLowerCase(), args.join(" ")).not.toContain("walrusmint");
    }
    const search = JSON.parse(await cli("memory", "search", "--episodes", "--json", "walrusmint")) as {
      results: unknown[];
      episodes: unknown[];
    };
    expect(search).toMatchObject({ results: [], episodes: [] });
    // The older fact is another memory: forgetting the newer one does not erase it.
    const all = JSON.parse(await cli("memory", "list", "--all", "--json")) as Listed;
    expect(all.memories.map((memory) => memory.text)).toEqual(["My locker code word is zebraquartz"]);
    expect(await cli("memory", "why", String(old.memory.id))).toContain("zebraquartz");

    await cli("memory", "forget", String(old.memory.id));
    expect(holding("zebraquartz")).toEqual([]);
    expect((JSON.parse(await cli("memory", "list", "--all", "--json")) as Listed).memories).toEqual([]);
  });
});
