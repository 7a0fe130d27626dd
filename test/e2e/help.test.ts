import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/program.js";
import { makeHome, runCli } from "../helpers/cli.js";

describe("mercury --help and --version (built binary, answered before the program loads)", () => {
  it("--help prints exactly the full program's help, with every command group", async () => {
    const { home } = makeHome();
    process.env.MERCURY_HOME = home; // some groups read the configuration while registering
    const program = await buildProgram(["node", "mercury", "help"]);
    const expected = program.helpInformation();
    const help = await runCli(["--help"], { home });
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(expected);
    for (const name of [
      "setup",
      "chat",
      "run",
      "config",
      "doctor",
      "memory",
      "policy",
      "start",
      "logs",
      "service",
    ])
      expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    const bare = await runCli([], { home });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toBe(expected);
  });

  it("--version prints the package version", async () => {
    const { home } = makeHome();
    const result = await runCli(["--version"], { home });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("bench's help describes its data format instead of pointing to a file the repository lacks", async () => {
    const { home } = makeHome();
    for (const args of [
      ["bench", "--help"],
      ["bench", "retrieval", "--help"],
    ]) {
      const help = await runCli(args, { home });
      expect(help.code).toBe(0);
      for (const [mentioned] of help.stdout.matchAll(/[\w./-]+\.md\b/g))
        expect(
          existsSync(resolve(import.meta.dirname, "../..", mentioned)),
          `${mentioned} in ${args.join(" ")}`,
        ).toBe(true);
    }
    const retrieval = await runCli(["bench", "retrieval", "--help"], { home });
    expect(retrieval.stdout.replace(/\s+/g, " ")).toContain(
      "{sample_id, conversation: {session_<n>: [{speaker, dia_id, text}]",
    );
  });
});
