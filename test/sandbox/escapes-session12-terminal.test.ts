import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultSandboxLimits } from "../../src/sandbox/types.js";
import { scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool } from "../../src/tools/run-command.js";
import { fakeContext } from "../tools/helpers.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "./fixture.js";

/**
 * Red-team pass 12: what a sandboxed command shares with the user's session, in one spawn. The
 * user's terminal (/dev/tty: typing into it, or writing over Mercury's own output), file descriptors
 * Mercury holds, abstract unix sockets (D-Bus, X11, ssh-agent and gpg-agent listen there and no
 * mount hides them: only a network namespace does) and /dev/shm (shared memory with host programs).
 */
let user: FakeUser;

beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
});
afterAll(async () => {
  await user?.cleanup();
});

describe("session resources from inside the sandbox (session 12)", () => {
  it("no terminal, no inherited descriptor, no host abstract socket, a private /dev/shm", async () => {
    const marker = `mercury-shm-probe-${process.pid}-${Date.now()}`;
    const tool = createRunCommandTool({
      killGraceMs: 300,
      env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
      sandbox: { userHome: user.home, require: true, limits: defaultSandboxLimits },
    });
    const command = [
      "{ echo typed > /dev/tty; } 2>/dev/null && echo TTY-WRITABLE || echo TTY-REFUSED",
      // The descriptors the shell holds (ls's own directory descriptor comes and goes).
      "echo FDS $(ls /proc/self/fd | tr '\\n' ' ')",
      // Abstract sockets show with a leading @ in the namespace's own table.
      "echo ABSTRACT $(grep -c ' @' /proc/net/unix)",
      `echo x > /dev/shm/${marker} && echo SHM-WRITTEN`,
    ].join("; ");
    const result = await tool.execute(
      { command },
      fakeContext({ cwd: user.workspace, home: user.mercuryHome }, "allow"),
    );
    const text = result.ok ? result.output : result.error;
    expect(text).toContain("TTY-REFUSED");
    const fds = (/FDS ([\d ]*)/.exec(text)?.[1] ?? "").trim().split(/\s+/).map(Number);
    expect(
      fds.filter((fd) => fd > 3),
      text,
    ).toEqual([]);
    expect(text).toContain("ABSTRACT 0");
    expect(text).toContain("SHM-WRITTEN");
    expect(existsSync(`/dev/shm/${marker}`)).toBe(false);
  });
});
