import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";

/**
 * README, Memory: "All take `--json`"; the contract: a command given `--json` prints one JSON
 * document. A memory command whose own failure (no such memory) printed `{ok: false, error}` printed
 * nothing on stdout when config.yaml was invalid — found by a newcomer editing the file by hand
 * between two commands (session 7). Both the fast path (add, search) and the full program (list).
 */
describe("memory --json with a config.yaml it cannot start with (built binary)", () => {
  it("prints {ok: false, error} naming the key, and stderr says it once; exit 2", async () => {
    const { home, userHome } = makeHome("memory:\n  enabled: maybe\n");
    for (const args of [
      ["memory", "add", "I like tea", "--json"],
      ["memory", "search", "tea", "--json"],
      ["memory", "list", "--json"],
    ]) {
      const result = await runCli(args, { home, userHome });
      expect(result.code).toBe(2);
      const document = JSON.parse(result.stdout) as { ok: boolean; error: string };
      expect(document.ok).toBe(false);
      expect(document.error).toContain("memory.enabled");
      expect(result.stderr.split("memory.enabled").length - 1).toBe(1);
    }
    // Without --json stdout stays empty.
    const plain = await runCli(["memory", "list"], { home, userHome });
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe("");
  });
});
