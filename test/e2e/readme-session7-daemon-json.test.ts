import { describe, expect, it } from "vitest";
import { makeHome, providerEnv, runCli } from "../helpers/cli.js";

/**
 * The command-line contract: "Every command that reports takes `--json` and then prints one JSON
 * document on stdout". `mercury start`, `stop` and `restart` report a pid but refused `--json` as an
 * unknown option (exit 2) — found by a newcomer scripting the daemon (session 7).
 */
describe("mercury start/stop/restart --json (built binary)", () => {
  it("each prints one JSON document with the pid; stop when nothing runs says so", async () => {
    const { home, userHome } = makeHome();
    const env = providerEnv("http://127.0.0.1:9/v1", { MERCURY_API_KEY: "k" });
    const idle = await runCli(["stop", "--json"], { home, userHome, env });
    expect(idle.code).toBe(0);
    expect(JSON.parse(idle.stdout)).toEqual({ ok: true, running: false, stopped: false, pid: null });

    const started = await runCli(["start", "--json"], { home, userHome, env });
    let running: number | null = null;
    try {
      expect(started.code).toBe(0);
      const start = JSON.parse(started.stdout) as { ok: boolean; running: boolean; pid: number };
      expect(start).toMatchObject({ ok: true, running: true, pid: expect.any(Number) });
      running = start.pid;

      const again = await runCli(["start", "--json"], { home, userHome, env });
      expect(again.code).toBe(1);
      expect(JSON.parse(again.stdout)).toMatchObject({
        ok: false,
        error: expect.stringContaining("already running"),
      });

      const restarted = await runCli(["restart", "--json"], { home, userHome, env });
      expect(restarted.code).toBe(0);
      const restart = JSON.parse(restarted.stdout) as { pid: number; previousPid: number };
      expect(restart).toMatchObject({ ok: true, running: true, previousPid: start.pid });
      expect(restart.pid).not.toBe(start.pid);
      running = restart.pid;
    } finally {
      const stopped = await runCli(["stop", "--json"], { home, userHome, env });
      expect(stopped.code).toBe(0);
      if (running !== null)
        expect(JSON.parse(stopped.stdout)).toEqual({ ok: true, running: false, stopped: true, pid: running });
    }
  });
});
