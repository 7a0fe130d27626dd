import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";

/**
 * The contract: "Every command that reports takes `--json` and then prints one JSON document on
 * stdout". With config.yaml edited by hand into an invalid file, every such command stopped with the
 * right message on stderr and exit 2, but printed nothing on stdout — a script parsing it got an
 * empty string (found by a newcomer, session 7).
 */
describe("--json when the command cannot start (built binary)", () => {
  it("prints {ok: false, error, exitCode: 2} once, and says it once on stderr", async () => {
    const { home, userHome } = makeHome("agent:\n  maxSteps: 0\n");
    for (const args of [
      ["usage", "--json"],
      ["config", "list", "--json"],
      ["policy", "check", "--json", "--", "ls"],
      ["schedule", "list", "--json"],
      ["soul", "show", "--json"],
    ]) {
      const result = await runCli(args, { home, userHome });
      expect(result.code).toBe(2);
      const lines = result.stdout.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] ?? "")).toEqual({
        ok: false,
        error: expect.stringContaining("agent.maxSteps: Too small"),
        exitCode: 2,
      });
      expect(result.stderr.split("agent.maxSteps: Too small").length - 1).toBe(1);
    }
  });

  it("leaves stdout empty without --json, and after `--` --json belongs to the checked command", async () => {
    const { home, userHome } = makeHome("agent:\n  maxSteps: 0\n");
    const plain = await runCli(["config", "list"], { home, userHome });
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe("");
    const checked = await runCli(["policy", "check", "--", "ls", "--json"], { home, userHome });
    expect(checked.code).toBe(2);
    expect(checked.stdout).toBe("");
  });
});
