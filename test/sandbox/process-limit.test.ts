import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultSandboxLimits } from "../../src/sandbox/types.js";
import { scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool } from "../../src/tools/run-command.js";
import { expectOk, fakeContext } from "../tools/helpers.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "./fixture.js";

/**
 * Fork-bomb containment, tested with a bounded loop (never a real fork bomb): the command tries to
 * start 300 background sleepers under a limit of 40 processes; the limit stops it, not the loop.
 * As root this is the pids cgroup, as a user RLIMIT_NPROC in the sandbox's user namespace.
 */
let user: FakeUser;
beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
});
afterAll(async () => {
  await user?.cleanup();
});

const spawnLoop =
  'i=0; while [ $i -lt 300 ]; do sleep 30 >/dev/null 2>&1 & [ $? -eq 0 ] || break; i=$((i+1)); done; echo "started $i"';

function mercuryCgroups(): string[] {
  const roots = ["/sys/fs/cgroup/pids", "/sys/fs/cgroup"].filter((root) => existsSync(root));
  return roots.flatMap((root) =>
    readdirSync(root).filter((name) => name.startsWith(`mercury-${process.pid}-`)),
  );
}

describe("the process-count limit", () => {
  it("stops a command that starts more processes than the limit, and leaves no cgroup behind", async () => {
    const tool = createRunCommandTool({
      killGraceMs: 300,
      env: { ...scrubbedEnv(), HOME: user.home },
      sandbox: { userHome: user.home, require: true, limits: { ...defaultSandboxLimits, processes: 40 } },
    });
    const result = await tool.execute(
      { command: spawnLoop },
      fakeContext({ cwd: user.workspace, home: user.mercuryHome }),
    );
    const output = result.ok ? result.output : result.error;
    // The shell cannot fork any more (dash stops there; a shell that goes on prints how many ran).
    expect(output).toMatch(/Cannot fork|Resource temporarily unavailable/i);
    const started = /started (\d+)/.exec(output);
    if (started) expect(Number(started[1])).toBeLessThan(40);
    expect(mercuryCgroups()).toEqual([]);
  });

  it("as root, removes the empty cgroups a Mercury killed mid-command left behind", async () => {
    const hierarchy = "/sys/fs/cgroup/pids";
    if (process.getuid?.() !== 0 || !existsSync(join(hierarchy, "cgroup.procs"))) return;
    // A pid far above pid_max: no such process.
    const stale = join(hierarchy, "mercury-99999999-1");
    mkdirSync(stale, { recursive: true });
    const tool = createRunCommandTool({
      env: { ...scrubbedEnv(), HOME: user.home },
      sandbox: { userHome: user.home, require: true },
    });
    expectOk(
      await tool.execute({ command: "true" }, fakeContext({ cwd: user.workspace, home: user.mercuryHome })),
    );
    expect(existsSync(stale)).toBe(false);
  });

  it("the default limit leaves room for ordinary work", async () => {
    const tool = createRunCommandTool({
      env: { ...scrubbedEnv(), HOME: user.home },
      sandbox: { userHome: user.home, require: true },
    });
    const output = expectOk(
      await tool.execute(
        { command: 'i=0; while [ $i -lt 50 ]; do true & i=$((i+1)); done; wait; echo "ran $i"' },
        fakeContext({ cwd: user.workspace, home: user.mercuryHome }),
      ),
    );
    expect(output).toContain("ran 50");
  });
});
