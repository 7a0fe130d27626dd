import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, providerEnv, runCli } from "../helpers/cli.js";

describe("mercury doctor as a newcomer reads it (built binary)", () => {
  it("a readable .env is one problem with one fix line, not the fix twice", async () => {
    const { home, userHome } = makeHome();
    const envFile = join(home, ".env");
    writeFileSync(envFile, "MERCURY_API_KEY=sk-test\n", { mode: 0o644 });
    const result = await runCli(["doctor", "--offline"], {
      home,
      userHome,
      env: providerEnv("http://127.0.0.1:9/v1"),
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain(`✗ secrets: ${envFile} has mode 644; others can read your keys\n`);
    expect(result.stdout.split(`chmod 600 ${envFile}`).length - 1, result.stdout).toBe(1);
    expect(result.stdout).toContain(`fix: chmod 600 ${envFile} (\`mercury doctor --fix\` does this)`);
  });
});
