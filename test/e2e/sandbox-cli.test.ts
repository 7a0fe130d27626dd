import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, providerEnv, runCli } from "../helpers/cli.js";

/** A PATH with no bwrap on it (node itself is started by absolute path). */
function pathWithoutBwrap(): string {
  const empty = mkdtempSync(join(tmpdir(), "mercury-no-bwrap-"));
  return empty;
}

/** A PATH holding links to only the named programs (so `missing` is absent). */
function pathWithout(missing: string, programs: string[]): string {
  const bin = mkdtempSync(join(tmpdir(), `mercury-no-${missing}-`));
  for (const program of programs) {
    const real = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
      .map((dir) => join(dir, program))
      .find((candidate) => existsSync(candidate));
    if (!real) throw new Error(`${program} is not installed here`);
    symlinkSync(real, join(bin, program));
  }
  return bin;
}

describe("the sandbox as the CLI reports it (built binary)", () => {
  it("doctor says commands are contained by bubblewrap when it is installed", async () => {
    const { home, userHome } = makeHome();
    const result = await runCli(["doctor", "--offline"], { home, userHome });
    expect(result.stdout).toContain(
      "✓ sandbox: bubblewrap (every command runs contained; a command granted the network reaches the internet through slirp4netns, never this machine, loopback, private or link-local addresses)",
    );
  });

  it("doctor and status say when the network filter is missing, with the fix", async () => {
    const { home, userHome } = makeHome();
    const path = pathWithout("slirp4netns", ["bwrap", "unshare", "setpriv", "ip"]);
    const doctor = await runCli(["doctor", "--offline"], { home, userHome, env: { PATH: path } });
    expect(doctor.stdout).toContain(
      "! sandbox network filter: the network filter needs slirp4netns, not found on PATH: commands and MCP servers that need the network are refused",
    );
    expect(doctor.stdout).toContain("sudo apt-get install slirp4netns");
    const json = await runCli(["status", "--json"], { home, userHome, env: { PATH: path } });
    expect(JSON.parse(json.stdout)).toMatchObject({
      sandbox: {
        available: true,
        network: { available: false, reason: expect.stringContaining("slirp4netns") },
      },
    });
    const plain = await runCli(["status"], { home, userHome, env: { PATH: path } });
    expect(plain.stdout).toContain("NO network filter");
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
