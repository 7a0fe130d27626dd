import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultSandboxLimits } from "../../src/sandbox/types.js";
import { scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool } from "../../src/tools/run-command.js";
import { fakeContext } from "../tools/helpers.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "./fixture.js";

/**
 * Red-team pass 11, the kernel's surface from inside the sandbox (the authorizer allows everything,
 * as `--yes` does; a fake home under /var/tmp). One spawn per check list: each syscall is tried by a
 * small Python program and prints `NAME ok` or `NAME <errno>`; the same program on the host shows
 * which ones the kernel allows there, so the sandbox's refusals are its own.
 */
let user: FakeUser;
const python = "/usr/bin/python3";

beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
});
afterAll(async () => {
  await user?.cleanup();
});

const numbers =
  process.arch === "arm64"
    ? { io_uring_setup: 425, userfaultfd: 282, perf_event_open: 241 }
    : { io_uring_setup: 425, userfaultfd: 323, perf_event_open: 298 };

const probe = `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(name, nr, *args):
    ctypes.set_errno(0)
    result = libc.syscall(nr, *args)
    print(name, "ok" if result >= 0 else "errno=%d" % ctypes.get_errno())
params = ctypes.create_string_buffer(120)
call("io_uring_setup", ${numbers.io_uring_setup}, ctypes.c_uint(1), params)
# UFFD_USER_MODE_ONLY (1): what an unprivileged process may open whatever the sysctl says.
call("userfaultfd", ${numbers.userfaultfd}, ctypes.c_int(1))
attr = ctypes.create_string_buffer(128)
ctypes.c_uint32.from_buffer(attr, 0).value = 1      # PERF_TYPE_SOFTWARE
ctypes.c_uint32.from_buffer(attr, 4).value = 128    # size
ctypes.c_uint64.from_buffer(attr, 40).value = 0x61  # disabled, exclude_kernel, exclude_hv
call("perf_event_open", ${numbers.perf_event_open}, attr, ctypes.c_int(0), ctypes.c_int(-1), ctypes.c_int(-1), ctypes.c_ulong(0))
`;

async function run(command: string) {
  const tool = createRunCommandTool({
    killGraceMs: 300,
    env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
    sandbox: { userHome: user.home, require: true, limits: defaultSandboxLimits },
  });
  const result = await tool.execute(
    { command },
    fakeContext({ cwd: user.workspace, home: user.mercuryHome }, "allow"),
  );
  return { ok: result.ok, text: result.ok ? result.output : result.error };
}

describe.skipIf(!existsSync(python))("kernel interfaces inside the sandbox (session 11)", () => {
  it("io_uring, userfaultfd and perf_event_open are refused with EPERM inside, while node still runs", async () => {
    const file = join(user.workspace, "probe.py");
    writeFileSync(file, probe);
    const host = execFileSync(python, [file], { encoding: "utf8" });
    const inside = await run(
      `${python} probe.py && node -e "require('fs').writeFileSync('n.txt', 'node ' + (1 + 1))" && cat n.txt`,
    );
    expect(inside.ok, inside.text).toBe(true);
    for (const name of ["io_uring_setup", "userfaultfd", "perf_event_open"]) {
      // Only what the host's kernel allows proves anything about the sandbox.
      if (host.includes(`${name} ok`)) expect(inside.text).toContain(`${name} errno=1`);
    }
    expect(host).toContain("io_uring_setup ok");
    expect(inside.text).toContain("node 2");
  });

  it("checked and holding: Mercury's process is not in the command's /proc, a nested user namespace sees no hidden folder", async () => {
    // A new user namespace is still allowed (nested sandboxes, Chromium's, need it); inside it the
    // masks over Mercury's home and ~/.ssh are locked mounts: unmounting them fails.
    const inside = await run(
      `ls /proc | grep -c '^[0-9]' ; test -e /proc/${process.pid}/environ && echo PARENT-VISIBLE; ` +
        `unshare -Um sh -c 'umount ${user.mercuryHome} 2>&1 || echo UMOUNT-REFUSED' 2>&1 || echo USERNS-REFUSED; ` +
        `unshare -Urm true 2>&1 || echo ROOT-MAP-REFUSED`,
    );
    expect(inside.text).not.toContain("PARENT-VISIBLE");
    expect(inside.text).toMatch(/UMOUNT-REFUSED|USERNS-REFUSED/);
    expect(inside.text).not.toMatch(/^umount: .* unmounted/m);
  });
});
