import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { RUN_OPTIONS, registerRunCommand } from "../../src/cli/commands/run.js";
import { GLOBAL_OPTIONS } from "../../src/cli/flags.js";
import { parsePlain } from "../../src/cli/plain-args.js";

/** What commander hands `mercury run`'s action for `run ...args`: its options (with the globals) and task. */
async function commanderParse(args: string[]) {
  const program = new Command().exitOverride();
  for (const spec of GLOBAL_OPTIONS) program.option(spec.flags, spec.description);
  registerRunCommand(program);
  const run = program.commands.find((command) => command.name() === "run");
  let seen: { options: Record<string, unknown>; words: string[] } | undefined;
  // The real action would start a task; this one records what it was given.
  run?.action((task: string, options: Record<string, unknown>, command: Command) => {
    seen = { options: { ...command.optsWithGlobals(), ...options }, words: [task] };
  });
  await program.parseAsync(["node", "mercury", "run", ...args]);
  return seen;
}

const specs = [...GLOBAL_OPTIONS, ...RUN_OPTIONS];

describe("mercury run without commander (run-fast.ts)", () => {
  it.each([
    [["hi"]],
    [["fix the tests", "--json"]],
    [["--json", "--yes", "write hello.txt"]],
    [["--output", "stream-json", "--cwd", "/tmp/project", "task"]],
    [["--output=json", "--session=abc", "continue"]],
    [["--continue", "go on", "--accept-check-changes"]],
    [["--model", "gpt-x", "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "hi"]],
    [["C++ and C#: which?", "--yes"]],
  ])("reads `run %j` exactly as commander does", async (args) => {
    expect(parsePlain(args, specs)).toEqual(await commanderParse(args));
  });

  it("leaves every other command line to commander (help, stdin task, errors, unusual forms)", () => {
    for (const args of [
      ["-"],
      ["--help"],
      ["-h", "hi"],
      ["hi", "--output"],
      ["hi", "--cwd", "-x"],
      ["hi", "--unknown"],
      ["--", "hi"],
      ["hi", "--json=yes"],
      ["hi", "--cwd", "a", "--cwd", "b"],
    ]) {
      expect(parsePlain(args, specs), JSON.stringify(args)).toBeNull();
    }
  });
});
