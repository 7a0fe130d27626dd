import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statfsSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectSandbox } from "../../src/sandbox/detect.js";
import { watchDiskSpace } from "../../src/sandbox/disk-guard.js";
import { defaultSandboxLimits } from "../../src/sandbox/types.js";
import { sandboxProgramLaunch } from "../../src/sandbox/wrap.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "./fixture.js";

/**
 * Red-team pass 11, the disk: an MCP server (a program started through `sandboxProgramLaunch`, which
 * Mercury does not wait on) writing its `$MERCURY_HOME/mcp/<name>/` past the floor is stopped with
 * the reason; the guard reports a folder it cannot stat instead of taking it for missing.
 */
let user: FakeUser;
beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
});
afterAll(async () => {
  await user?.cleanup();
});

function start(argv: string[], serverFolder: string, diskFloorBytes?: number) {
  const launch = sandboxProgramLaunch(
    argv,
    {
      workspace: serverFolder,
      cwd: serverFolder,
      userHome: user.home,
      mercuryHome: user.mercuryHome,
      network: false,
      limits: { ...defaultSandboxLimits, ...(diskFloorBytes !== undefined ? { diskFloorBytes } : {}) },
    },
    detectSandbox(),
  );
  const child = spawn(launch.file, launch.args, { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const ended = new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    child.on("close", (code) => done({ code, stdout, stderr })),
  );
  return { child, ended };
}

describe("an MCP server's own folder and the disk floor (session 11)", () => {
  it("a server that writes its folder below the floor is stopped and says why", async () => {
    const serverFolder = join(user.mercuryHome, "mcp", "filler");
    mkdirSync(serverFolder, { recursive: true });
    const info = statfsSync(serverFolder);
    const free = info.bavail * info.bsize;
    // The floor sits 64 MiB below what is free now; the server writes 256 MiB, then waits on stdin
    // like a server that answers requests (it never exits by itself).
    const { child, ended } = start(
      ["/bin/sh", "-c", "head -c 268435456 /dev/zero > fill.bin; exec cat"],
      serverFolder,
      free - 64 * 1024 ** 2,
    );
    const result = await ended;
    rmSync(join(serverFolder, "fill.bin"), { force: true });
    expect(child.signalCode ?? result.code).not.toBe(0);
    expect(result.stderr).toContain("mercury: stopped: the disk holding");
  });

  it("a server under the floor keeps its stdin and stdout (the protocol channel) and its exit code", async () => {
    const serverFolder = join(user.mercuryHome, "mcp", "echo");
    mkdirSync(serverFolder, { recursive: true });
    const { child, ended } = start(["/bin/sh", "-c", "cat; exit 7"], serverFolder);
    child.stdin.end('{"jsonrpc":"2.0"}\n');
    const result = await ended;
    expect(result.stdout).toBe('{"jsonrpc":"2.0"}\n');
    expect(result.code).toBe(7);
    expect(result.stderr).toBe("");
  });
});

describe("disk-guard stat errors (session 11)", () => {
  it("a folder it cannot stat is reported; a missing one is still skipped", () => {
    const root = mkdtempSync(join(tmpdir(), "mercury-s11-disk-"));
    try {
      symlinkSync(join(root, "b"), join(root, "a"));
      symlinkSync(join(root, "a"), join(root, "b"));
      writeFileSync(join(root, "file"), "");
      expect(() => watchDiskSpace([join(root, "a")], () => undefined)).toThrow(/ELOOP/);
      expect(() => watchDiskSpace([join(root, "file", "below")], () => undefined)).toThrow(/ENOTDIR/);
      const guard = watchDiskSpace([join(root, "missing")], () => undefined);
      expect(guard.reason()).toBeNull();
      guard.stop();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
