import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";
import { makeHome, runCli } from "../helpers/cli.js";
import { type DaemonHome, daemonHome, pidFromStart } from "./daemon-helpers.js";

let server: FakeOpenAIServer;
let daemon: DaemonHome;
let pid: number;

beforeAll(async () => {
  server = await startFakeOpenAIServer({ replies: [] });
  daemon = daemonHome(server.url);
  const started = await daemon.cli(["start"]);
  if (started.code !== 0) throw new Error(`start failed: ${started.stderr}`);
  pid = pidFromStart(started.stdout);
});

afterAll(async () => {
  await daemon.cli(["stop"]);
  await daemon.cleanup();
  await server.close();
});

describe("mercury status / logs against a running daemon", () => {
  it("status --json prints one document with pid, uptime, version, channels, tasks, approvals and budget", async () => {
    const result = await daemon.cli(["status", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    const status = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(status).toMatchObject({
      running: true,
      pid,
      version: JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")).version,
      channels: [],
      tasks: { active: [], paused: [] },
      pendingApprovals: [],
      budget: { tokensToday: 0, costUsdToday: 0 },
    });
    expect(typeof status.uptimeSeconds).toBe("number");
    expect(status.socket).toBe(join(daemon.home, "mercury.sock"));
  });

  it("status without --json is readable", async () => {
    const result = await daemon.cli(["status"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`running (pid ${pid}`);
    expect(result.stdout).toContain("tasks: 0 active, 0 paused");
  });

  it("the socket is mode 0600 and refuses malformed requests with the reason", async () => {
    const mode = statSync(join(daemon.home, "mercury.sock")).mode & 0o777;
    expect(mode).toBe(0o600);
    const client = await daemon.connect();
    await expect(client.request({ type: "approve", approvalId: "nope", decision: "once" })).rejects.toThrow(
      /No approval with id nope/,
    );
    await expect(client.request({ type: "answer", questionId: "q1", answer: "x" })).rejects.toThrow(
      /No open question q1/,
    );
    client.close();
  });

  it("logs -n N prints the last N lines of daemon.log", async () => {
    const log = join(daemon.home, "logs", "daemon.log");
    const all = readFileSync(log, "utf8").trimEnd().split("\n");
    expect(all.length).toBeGreaterThanOrEqual(2);
    const raw = await daemon.cli(["logs", "-n", "2", "--json"]);
    expect(raw.code).toBe(0);
    expect(raw.stdout.trimEnd().split("\n")).toEqual(all.slice(-2));
    const readable = await daemon.cli(["logs", "-n", "2"]);
    expect(readable.code).toBe(0);
    const lines = readable.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(readable.stdout).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} INFO .*daemon ready/m);
    const bad = await daemon.cli(["logs", "-n", "many"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('-n "many"');
  });
});

describe("mercury service", () => {
  it("--dry-run prints the systemd unit and writes nothing", async () => {
    const { home, userHome } = makeHome();
    const result = await runCli(["service", "install", "--dry-run", "--platform", "linux"], {
      home,
      userHome,
    });
    expect(result.code, result.stderr).toBe(0);
    const unitFile = join(userHome, ".config", "systemd", "user", "mercury.service");
    expect(result.stdout).toContain(`# would write ${unitFile}`);
    expect(result.stdout).toContain("[Service]");
    // The program the person runs: the package's bin (dist/mercury.cjs), which runs dist/cli.js.
    expect(result.stdout).toMatch(/ExecStart=\S+ \S+dist\/mercury\.cjs daemon run/);
    expect(result.stdout).toContain("Restart=on-failure");
    expect(result.stdout).toContain(`Environment=MERCURY_HOME=${home}`);
    expect(result.stdout).toContain("WantedBy=default.target");
    expect(result.stdout).toContain("systemctl --user enable --now mercury.service");
    expect(existsSync(unitFile)).toBe(false);
    // Lingering: explained with the command whenever it is not known to be on (this machine decides).
    const json = await runCli(["service", "install", "--dry-run", "--json", "--platform", "linux"], {
      home,
      userHome,
    });
    const { lingering } = JSON.parse(json.stdout) as { lingering: boolean | null };
    if (lingering === true) expect(result.stdout).not.toContain("enable-linger");
    else {
      expect(result.stdout).toContain("systemd stops your user services when you log out");
      expect(result.stdout).toMatch(/loginctl enable-linger \S+/);
    }
  });

  it("install writes the unit under HOME, status sees it, uninstall removes it", async () => {
    const { home, userHome } = makeHome();
    const options = { home, userHome };
    const unitFile = join(userHome, ".config", "systemd", "user", "mercury.service");
    const before = await runCli(["service", "status", "--json", "--platform", "linux"], options);
    expect(before.code).toBe(1);
    expect(JSON.parse(before.stdout)).toMatchObject({ installed: false, path: unitFile });

    const install = await runCli(["service", "install", "--platform", "linux"], options);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain(`wrote ${unitFile}`);
    expect(install.stdout).toContain("systemctl --user daemon-reload");
    expect(readFileSync(unitFile, "utf8")).toContain("Restart=on-failure");

    const status = await runCli(["service", "status", "--json", "--platform", "linux"], options);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ installed: true, upToDate: true });

    writeFileSync(unitFile, "[Service]\nExecStart=/old/mercury\n");
    const stale = await runCli(["service", "status", "--platform", "linux"], options);
    expect(stale.stdout).toContain("differs from this Mercury's unit");

    // Enabled (the link `systemctl --user enable` makes): the file stays until the user disables it,
    // because `disable` needs the file and would leave the link behind.
    const wants = join(userHome, ".config", "systemd", "user", "default.target.wants");
    mkdirSync(wants, { recursive: true });
    symlinkSync(unitFile, join(wants, "mercury.service"));
    const refused = await runCli(["service", "uninstall", "--platform", "linux", "--json"], options);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("systemctl --user disable --now mercury.service");
    expect(JSON.parse(refused.stdout)).toMatchObject({ removed: false, enabled: true });
    expect(existsSync(unitFile)).toBe(true);

    rmSync(join(wants, "mercury.service"));
    const uninstall = await runCli(["service", "uninstall", "--platform", "linux"], options);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stdout).toContain(`removed ${unitFile}`);
    expect(uninstall.stdout).toContain("systemctl --user daemon-reload");
    expect(uninstall.stdout).not.toContain("disable");
    expect(existsSync(unitFile)).toBe(false);
  });

  it("renders a launchd agent that restarts on failure for macOS", async () => {
    const { home, userHome } = makeHome();
    const result = await runCli(["service", "install", "--dry-run", "--platform", "darwin"], {
      home,
      userHome,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(join(userHome, "Library", "LaunchAgents", "dev.mercury.agent.plist"));
    expect(result.stdout).toContain("<key>RunAtLoad</key>");
    expect(result.stdout).toMatch(/<key>KeepAlive<\/key>\s*<dict>\s*<key>SuccessfulExit<\/key>\s*<false\/>/);
    expect(result.stdout).toContain("launchctl bootstrap");
  });

  it("refuses an unknown platform with the allowed values", async () => {
    const { home, userHome } = makeHome();
    const result = await runCli(["service", "install", "--dry-run", "--platform", "windows"], {
      home,
      userHome,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("expected linux or darwin");
  });
});
