import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { daemonConfig, daemonHome } from "../daemon/daemon-helpers.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";
import { send } from "./dashboard-harness.js";

const fixture = useDaemonFixture();

function loginPath(link: string): { port: number; path: string; token: string } {
  const url = new URL(link);
  return {
    port: Number(url.port),
    path: `${url.pathname}${url.search}`,
    token: url.searchParams.get("token") ?? "",
  };
}

describe("mercury dashboard (the built binary)", () => {
  it("starts the daemon with the dashboard on 127.0.0.1 and prints a one-time link; `open` prints a fresh one", async () => {
    const daemon = daemonHome(fixture.server.url);
    fixture.current = daemon;
    const started = await daemon.cli(["dashboard", "--port", "0", "--no-open", "--json"]);
    expect(started.code, started.stderr).toBe(0);
    const info = JSON.parse(started.stdout) as {
      url: string;
      loginUrl: string;
      host: string;
      running: boolean;
    };
    expect(info.host).toBe("127.0.0.1");
    expect(info.loginUrl.startsWith("http://127.0.0.1:")).toBe(true);
    const first = loginPath(info.loginUrl);
    const login = await send(first.port, "GET", first.path);
    expect(login.status).toBe(303);
    expect((await send(first.port, "GET", first.path)).status).toBe(401);

    const opened = await daemon.cli(["dashboard", "open", "--no-open"]);
    expect(opened.code, opened.stderr).toBe(0);
    const link = /(http:\/\/127\.0\.0\.1:\d+\/login\?token=\S+)/.exec(opened.stdout)?.[1] ?? "";
    expect(link).not.toBe("");
    const second = loginPath(link);
    expect(second.token).not.toBe(first.token);
    expect((await send(second.port, "GET", second.path)).status).toBe(303);

    const status = await daemon.cli(["dashboard", "status", "--json"]);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, port: first.port });
    // The tokens went to this terminal only: never to the daemon's log.
    const logs = join(daemon.home, "logs");
    const log = readdirSync(logs)
      .map((name) => readFileSync(join(logs, name), "utf8"))
      .join("\n");
    expect(log).toContain("dashboard listening");
    expect(log).not.toContain(first.token);
    expect(log).not.toContain(second.token);

    const refused = await daemon.cli(["dashboard", "stop"]);
    expect(refused.code).toBe(0);
    const lan = await daemon.cli(["dashboard", "--host", "0.0.0.0", "--port", "0", "--no-open"]);
    expect(lan.code).toBe(1);
    expect(lan.stderr).toContain("refusing to serve the dashboard on 0.0.0.0");
    expect(lan.stderr).toContain("--insecure-lan");
    expect((await daemon.cli(["dashboard", "status", "--json"])).stdout).toContain('"running":false');
    await daemon.cli(["stop"]);
  });

  it("a daemon configured to serve the dashboard on a network address without TLS refuses to start", async () => {
    const daemon = daemonHome(fixture.server.url);
    fixture.current = daemon;
    writeFileSync(
      join(daemon.home, "config.yaml"),
      `${daemonConfig}dashboard:\n  enabled: true\n  host: 0.0.0.0\n  port: 0\n`,
    );
    const started = await daemon.cli(["start"]);
    expect(started.code).toBe(1);
    expect(started.stderr).toContain("refusing to serve the dashboard on 0.0.0.0");
  });

  it("a daemon whose dashboard port is taken still starts, and says why the dashboard did not", async () => {
    const daemon = daemonHome(fixture.server.url);
    fixture.current = daemon;
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      writeFileSync(
        join(daemon.home, "config.yaml"),
        `${daemonConfig}dashboard:\n  enabled: true\n  port: ${port}\n`,
      );
      const started = await daemon.cli(["start"]);
      expect(started.code, started.stderr).toBe(0);
      const status = await daemon.cli(["dashboard", "status"]);
      expect(status.stdout).toContain(`it failed to start: port ${port} on 127.0.0.1 is already in use`);
      await daemon.cli(["stop"]);
    } finally {
      blocker.close();
    }
  });

  it("rejects a half TLS configuration with the key to fix", async () => {
    const daemon = daemonHome(fixture.server.url);
    fixture.current = daemon;
    writeFileSync(join(daemon.home, "config.yaml"), `${daemonConfig}dashboard:\n  tlsCert: /tmp/cert.pem\n`);
    const result = await daemon.cli(["dashboard", "--no-open"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("dashboard.tlsCert and dashboard.tlsKey go together");
  });
});
