import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, providerEnv, runCli } from "../helpers/cli.js";

/** A PATH with no bwrap on it (node itself is started by absolute path). */
function pathWithoutBwrap(): string {
  const empty = mkdtempSync(join(tmpdir(), "mercury-no-bwrap-"));
  return empty;
}

describe("the sandbox as the CLI reports it (built binary)", () => {
  it("doctor says commands are contained by bubblewrap when it is installed", async () => {
    const { home, userHome } = makeHome();
    const result = await runCli(["doctor", "--offline"], { home, userHome });
    expect(result.stdout).toContain("✓ sandbox: bubblewrap (every command runs contained)");
  });

  it("doctor warns when no sandbox is available and says how to install it", async () => {
    const { home, userHome } = makeHome();
    const result = await runCli(["doctor", "--offline"], {
      home,
      userHome,
      env: { PATH: pathWithoutBwrap() },
    });
    expect(result.stdout).toContain(
      "! sandbox: no OS sandbox for commands: bubblewrap (bwrap) is not installed",
    );
    expect(result.stdout).toContain("fix: install it: `sudo apt-get install bubblewrap`");
  });

  it("status shows the sandbox, also when the daemon is not running", async () => {
    const { home, userHome } = makeHome();
    const plain = await runCli(["status"], { home, userHome });
    expect(plain.stdout).toContain("sandbox: bubblewrap");
    const json = await runCli(["status", "--json"], { home, userHome, env: { PATH: pathWithoutBwrap() } });
    expect(JSON.parse(json.stdout)).toMatchObject({
      running: false,
      sandbox: { available: false, reason: "bubblewrap (bwrap) is not installed" },
    });
  });

  it("run refuses the home folder and / as the workspace, asking for a project folder", async () => {
    const { home, userHome } = makeHome();
    for (const cwd of [userHome, "/"]) {
      // A usable provider, so the workspace rule is what stops the run (the model is never reached).
      const result = await runCli(["run", "tidy up", "--yes", "--cwd", cwd], {
        home,
        userHome,
        env: providerEnv("http://127.0.0.1:9/v1"),
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`The working directory ${cwd} is`);
      expect(result.stderr).toContain("Run the task in a project folder instead");
    }
    const above = join(userHome, "..");
    mkdirSync(join(userHome, "project"), { recursive: true });
    const parent = await runCli(["run", "tidy up", "--cwd", above], {
      home,
      userHome,
      env: providerEnv("http://127.0.0.1:9/v1"),
    });
    expect(parent.code).toBe(2);
    expect(parent.stderr).toContain("a folder that contains your home folder");
  });
});
