import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bubblewrapLaunch } from "../../src/sandbox/bubblewrap.js";
import { limitPrologue } from "../../src/sandbox/limits.js";
import { secretMasks } from "../../src/sandbox/masks.js";
import { quote, seatbeltLaunch, seatbeltProfile } from "../../src/sandbox/seatbelt.js";
import { defaultSandboxLimits, type SandboxPolicy } from "../../src/sandbox/types.js";
import { workspaceRefusal } from "../../src/sandbox/workspace.js";
import { type FakeUser, makeFakeUser } from "./fixture.js";

let user: FakeUser;
let policy: SandboxPolicy;
beforeAll(async () => {
  user = await makeFakeUser();
  policy = {
    workspace: user.workspace,
    cwd: user.workspace,
    userHome: user.home,
    mercuryHome: user.mercuryHome,
    network: false,
    limits: defaultSandboxLimits,
  };
});
afterAll(async () => {
  await user.cleanup();
});

describe("the macOS sandbox-exec profile", () => {
  it("denies by default, reads everywhere, writes only the workspace and temporary folders", () => {
    const profile = seatbeltProfile(policy, secretMasks(user.home, user.mercuryHome));
    const lines = profile.trimEnd().split("\n");
    expect(lines.slice(0, 2)).toEqual(["(version 1)", "(deny default)"]);
    expect(profile).toContain("(allow file-read*)");
    const writes = lines.find((line) => line.startsWith("(allow file-write*"));
    expect(writes).toContain(`(subpath "${user.workspace}")`);
    expect(writes).toContain('(subpath "/private/tmp")');
    expect(writes).not.toContain(`(subpath "${user.home}")`);
  });

  it("hides Mercury's home except skills/, and every secret that exists, after the allows (last match wins)", () => {
    const profile = seatbeltProfile(policy, secretMasks(user.home, user.mercuryHome));
    const lines = profile.split("\n");
    const at = (text: string) => lines.findIndex((line) => line.includes(text));
    const hideMercury = at(`(deny file-read* file-write* (subpath "${user.mercuryHome}"))`);
    expect(hideMercury).toBeGreaterThan(at("(allow file-read*)"));
    expect(at(`(allow file-read* (subpath "${user.mercuryHome}/skills"))`)).toBeGreaterThan(hideMercury);
    for (const secret of [
      `(subpath "${user.home}/.ssh")`,
      `(subpath "${user.home}/.aws")`,
      `(literal "${user.mercuryHome}/.env")`,
    ])
      expect(at(`(deny file-read* file-write* ${secret})`)).toBeGreaterThan(hideMercury);
  });

  it("has no network unless granted, and with it granted still refuses loopback", () => {
    const closed = seatbeltProfile(policy, []);
    expect(closed).toContain("(deny network*)");
    expect(closed).not.toContain("(allow network*)");
    const open = seatbeltProfile({ ...policy, network: true }, []);
    const lines = open.split("\n");
    expect(lines.indexOf('(deny network-outbound (remote ip "localhost:*"))')).toBeGreaterThan(
      lines.indexOf("(allow network*)"),
    );
  });

  it("escapes quotes and backslashes in paths so a folder name cannot end the rule", () => {
    expect(quote('/tmp/a"b\\c')).toBe('"/tmp/a\\"b\\\\c"');
    const profile = seatbeltProfile(
      { ...policy, workspace: '/Users/x/evil") (allow file-write* (subpath "/' },
      [],
    );
    expect(profile).toContain('(subpath "/Users/x/evil\\") (allow file-write* (subpath \\"/")');
  });

  it("runs the command through sandbox-exec with the limits set by the shell first", () => {
    const launch = seatbeltLaunch(policy, [], ["/bin/sh", "-c", "npm test"]);
    expect(launch.file).toBe("/usr/bin/sandbox-exec");
    expect(launch.args.slice(2)).toEqual([
      "/bin/sh",
      "-c",
      limitPrologue(defaultSandboxLimits),
      "sh",
      "/bin/sh",
      "-c",
      "npm test",
    ]);
    expect(
      limitPrologue({ memoryBytes: 1024 ** 3, fileSizeBytes: 1024 ** 2, openFiles: 64, processes: 50 }),
    ).toBe(
      'ulimit -d 1048576 && ulimit -f 2048 && ulimit -n 64 && { ulimit -u 50 2>/dev/null || ulimit -p 50; } && exec "$@"',
    );
    // The wall-clock backstop for a sandbox that outlives Mercury.
    expect(
      limitPrologue({
        memoryBytes: 1024 ** 3,
        fileSizeBytes: 1024 ** 2,
        openFiles: 64,
        processes: 50,
        wallClockSeconds: 7,
      }),
    ).toBe(
      'ulimit -d 1048576 && ulimit -f 2048 && ulimit -n 64 && { ulimit -u 50 2>/dev/null || ulimit -p 50; } && exec timeout -s KILL 7 "$@"',
    );
  });
});

describe("the bubblewrap command line", () => {
  const launchFor = (overrides: Partial<SandboxPolicy> = {}) =>
    bubblewrapLaunch({
      policy: { ...policy, ...overrides },
      argv: ["/bin/sh", "-c", "echo hi"],
      masks: secretMasks(user.home, user.mercuryHome),
      bwrap: "/usr/bin/bwrap",
    }).args.join(" ");

  it("mounts the workspace writable after hiding Mercury's home, and masks secrets after the workspace", () => {
    const args = launchFor();
    expect(args.startsWith("--ro-bind / / --dev /dev --proc /proc ")).toBe(true);
    // The kernel's settings read-only, host-wide files hidden (proc-guard.ts), before /tmp and /run.
    expect(args).toContain("--proc /proc --ro-bind /proc/sys /proc/sys");
    expect(args).toContain("--ro-bind /dev/null /proc/keys");
    const hide = args.indexOf(`--tmpfs ${user.mercuryHome}`);
    const workspace = args.indexOf(`--bind ${user.workspace} ${user.workspace}`);
    const ssh = args.indexOf(`--tmpfs ${user.home}/.ssh`);
    expect(hide).toBeGreaterThan(-1);
    expect(workspace).toBeGreaterThan(hide);
    expect(ssh).toBeGreaterThan(workspace);
    expect(args).toContain(`--ro-bind ${user.mercuryHome}/skills ${user.mercuryHome}/skills`);
    expect(args).toContain("--unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --unshare-net");
    expect(args).toContain("--die-with-parent --new-session --cap-drop ALL");
    expect(args.endsWith(`-- /bin/sh -c ${limitPrologue(defaultSandboxLimits)} sh /bin/sh -c echo hi`)).toBe(
      true,
    );
  });

  it("shares the network only when the command was granted it", () => {
    expect(launchFor({ network: true })).not.toContain("--unshare-net");
  });

  it("masks a symlinked secret folder where it really is", () => {
    const real = `${user.root}/real-gnupg`;
    mkdirSync(real);
    writeFileSync(`${real}/secring.gpg`, "x");
    symlinkSync(real, `${user.home}/.gnupg`);
    const masks = secretMasks(user.home, user.mercuryHome).map((mask) => mask.path);
    expect(masks).toContain(real);
    expect(masks).not.toContain(`${user.home}/.gnupg`);
  });
});

describe("which folders may be the writable workspace", () => {
  it.each([
    ["/", "the root of the file system"],
    ["HOME", "your home folder"],
    ["HOME/..", "a folder that contains your home folder"],
    ["/etc", "a system folder"],
    ["/usr/local/lib", "a system folder"],
    ["/tmp", "a folder shared by every user"],
    ["HOME/.ssh", "a protected location"],
    ["HOME/.mercury", "Mercury's home folder"],
  ])("refuses %s (%s)", (spelled, why) => {
    const path = spelled.replace("HOME", user.home);
    expect(workspaceRefusal(path, user.home, user.mercuryHome)).toContain(why);
  });

  it("accepts a project folder, and the daemon's workspace inside Mercury's home", () => {
    expect(workspaceRefusal(user.workspace, user.home, user.mercuryHome)).toBeNull();
    expect(workspaceRefusal(`${user.mercuryHome}/workspace`, user.home, user.mercuryHome)).toBeNull();
  });
});
