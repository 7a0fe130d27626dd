import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { registerMemoryCommands } from "../../src/cli/commands/memory.js";
import { ADD_OPTIONS, COMMON_OPTIONS, SEARCH_OPTIONS } from "../../src/cli/commands/memory-actions.js";
import { parsePlain } from "../../src/cli/commands/memory-fast.js";
import { makeHarness } from "./store/harness.js";

/** What commander makes of `memory <name> ...args`: the subcommand's options and its words. */
async function commanderParse(name: "add" | "search", args: string[]) {
  const harness = makeHarness();
  const program = new Command().exitOverride();
  registerMemoryCommands(program, async () => harness.service, { stdout: () => {}, stderr: () => {} });
  await program.parseAsync(["node", "mercury", "memory", name, ...args]);
  process.exitCode = 0;
  const command = program.commands
    .find((c) => c.name() === "memory")
    ?.commands.find((c) => c.name() === name);
  return { options: { ...command?.opts() }, words: command?.processedArgs[0] as string[] };
}

const plainLines: ["add" | "search", string[]][] = [
  ["search", ["coffee"]],
  ["search", ["--json", "what", "do", "I", "drink"]],
  ["search", ["tea", "--limit", "3", "--all"]],
  ["search", ["--limit=2", "--as-of", "2026-01-01", "--episodes", "C++", "C#"]],
  ["search", ["--user", "telegram:42", "🍣"]],
  ["add", ["I", "like", "green", "tea"]],
  ["add", ["--kind", "preference", "I", "like", "tea", "--importance=high", "--project", "mercury"]],
  ["add", ["--json", "--user=owner", "my", "sister", "is", "Anna"]],
];

describe("memory add/search without commander", () => {
  it.each(plainLines)("reads `memory %s %j` exactly as commander does", async (name, args) => {
    const specs = [...COMMON_OPTIONS, ...(name === "add" ? ADD_OPTIONS : SEARCH_OPTIONS)];
    expect(parsePlain(args, specs)).toEqual(await commanderParse(name, args));
  });

  it("leaves every other command line to commander (help, errors, unusual forms)", () => {
    const specs = [...COMMON_OPTIONS, ...SEARCH_OPTIONS];
    for (const args of [
      [],
      ["--json"],
      ["--help", "tea"],
      ["-h"],
      ["tea", "--limit"],
      ["tea", "--limit", "-1"],
      ["tea", "--unknown"],
      ["--", "tea"],
      ["-5", "degrees"],
      ["tea", "--json=yes"],
      ["tea", "--limit", "2", "--limit", "3"],
    ]) {
      expect(parsePlain(args, specs), JSON.stringify(args)).toBeNull();
    }
  });
});
