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
});
