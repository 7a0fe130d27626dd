import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";

/**
 * README: `mercury logs [-f] [-n N] [--json]` shows the daemon's log. Before the daemon ever ran, it
 * printed nothing at all, which a newcomer reads as a broken command (session 7).
 */
describe("mercury logs before the daemon ever ran (built binary)", () => {
  it("says there is no log yet and how to get one, on stderr; stdout stays empty; exit 0", async () => {
    const { home } = makeHome();
    for (const args of [["logs"], ["logs", "--json"]]) {
      const result = await runCli(args, { home });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(`no daemon log yet (${join(home, "logs")}`);
      expect(result.stderr).toContain("`mercury start`");
    }
  });
});
