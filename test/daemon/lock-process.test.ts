import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../../src/daemon/lock.js";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";
import { type DaemonHome, daemonHome, killHard, pidFromStart } from "./daemon-helpers.js";

let server: FakeOpenAIServer;
let current: DaemonHome | null = null;

beforeAll(async () => {
  server = await startFakeOpenAIServer({ replies: [] });
  return () => server.close();
});

afterEach(async () => {
  await current?.cleanup();
  current = null;
});

describe("single instance per MERCURY_HOME (real processes)", () => {
  it("a second start says already running (pid N); after kill -9 the stale lock is taken over", async () => {
    current = daemonHome(server.url);
    const first = await current.cli(["start"]);
    expect(first.code, first.stderr).toBe(0);
    const pid = pidFromStart(first.stdout);
    expect(current.lockPid()).toBe(pid);

    const second = await current.cli(["start"]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`already running (pid ${pid})`);

    // The foreground entry point (what systemd runs) refuses too, and does not disturb the first.
    const foreground = await current.cli(["daemon", "run"]);
    expect(foreground.code).toBe(1);
    expect(foreground.stderr).toContain(`already running (pid ${pid})`);
    expect(isAlive(pid)).toBe(true);

    await killHard(pid);
    expect(current.lockPid()).toBe(pid); // the lock file is still there, naming a dead process

    const third = await current.cli(["start"]);
    expect(third.code, third.stderr).toBe(0);
    const newPid = pidFromStart(third.stdout);
    expect(newPid).not.toBe(pid);
    expect(current.lockPid()).toBe(newPid);

    const stopped = await current.cli(["stop"]);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`mercury stopped (pid ${newPid})`);
    expect(current.lockPid()).toBeNull();
  });

  it("stop and status report a daemon that is not running", async () => {
    current = daemonHome(server.url);
    const stop = await current.cli(["stop"]);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain("not running");
    const status = await current.cli(["status", "--json"]);
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: false, pid: null });
  });
});
