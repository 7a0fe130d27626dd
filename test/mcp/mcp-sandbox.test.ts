import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { McpServerConfig } from "../../src/config/mcp-schema.js";
import { McpConnection } from "../../src/mcp/connection.js";
import { McpManager } from "../../src/mcp/manager.js";
import { mcpSandboxWrapper } from "../../src/mcp/sandbox.js";
import type { SandboxStatus } from "../../src/sandbox/types.js";
import {
  DOT_ENV_TEXT,
  type FakeUser,
  makeFakeUser,
  requireSandbox,
  SSH_KEY_TEXT,
} from "../sandbox/fixture.js";
import { countingServer, hostAddress } from "../sandbox/network-probe.js";

const serverMain = join(import.meta.dirname, "../fakes/mcp-server.ts");
const tsx = import.meta.resolve("tsx");
const stdioServer = (extra: Partial<McpServerConfig> = {}): McpServerConfig => ({
  command: process.execPath,
  args: ["--import", tsx, serverMain],
  ...extra,
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** One stdio server started the way createApp starts it: with the sandbox wrapper. */
async function connect(
  user: FakeUser,
  config: McpServerConfig,
  status?: () => SandboxStatus,
): Promise<McpConnection> {
  const connection = new McpConnection("files", config, {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    home: user.mercuryHome,
    wrapLaunch: mcpSandboxWrapper({
      mercuryHome: user.mercuryHome,
      userHome: user.home,
      ...(status ? { status } : {}),
    }),
  });
  cleanups.push(() => connection.close());
  await connection.start();
  return connection;
}

async function fakeUser(): Promise<FakeUser> {
  const user = await makeFakeUser();
  cleanups.push(() => user.cleanup());
  return user;
}

const signal = () => new AbortController().signal;
const unavailable: () => SandboxStatus = () => ({
  available: false,
  reason: "bubblewrap (bwrap) is not installed",
  fix: "install it: `sudo apt-get install bubblewrap`",
});

describe("stdio MCP servers in the OS sandbox", () => {
  it("needs a working sandbox on this machine (bubblewrap is installed here)", () => {
    requireSandbox();
  });

  it("a sandboxed server lists and calls tools, cannot read the user's secrets nor MERCURY_HOME, and writes only its own folder", async () => {
    const user = await fakeUser();
    const server = await connect(user, stdioServer());
    expect(server.state).toBe("ready");
    expect(server.tools().map((tool) => tool.name)).toContain("read_path");
    expect(await server.call("echo", { text: "hi" }, signal())).toEqual({ isError: false, text: "echo: hi" });

    for (const path of [
      user.secrets.sshKey,
      user.secrets.dotEnv,
      user.secrets.awsCredentials,
      join(user.mercuryHome, "config.yaml"),
      join(user.mercuryHome, "skills", "hello", "SKILL.md"),
    ]) {
      const read = await server.call("read_path", { path }, signal());
      expect(read.isError, `${path} must be out of sight`).toBe(true);
      expect(read.text).not.toContain("FAKE-KEY-MATERIAL");
      expect(read.text).not.toContain("sk-fake-mercury-key");
    }
    // Outside MERCURY_HOME and the secret folders the file system is readable (read-only).
    expect((await server.call("read_path", { path: join(user.home, "notes.txt") }, signal())).text).toBe(
      "read: ordinary notes\n",
    );

    const own = join(user.mercuryHome, "mcp", "files", "state.json");
    expect(await server.call("write_path", { path: own, text: "{}" }, signal())).toMatchObject({
      isError: false,
    });
    expect(readFileSync(own, "utf8")).toBe("{}");
    for (const path of [
      join(user.mercuryHome, "config.yaml"),
      join(user.mercuryHome, "mcp", "other.txt"),
      join(user.workspace, "planted.txt"),
      join(user.home, ".bashrc"),
    ]) {
      const write = await server.call("write_path", { path, text: "x" }, signal());
      expect(write.isError, `${path} must not be writable`).toBe(true);
    }
    expect(readFileSync(join(user.mercuryHome, "config.yaml"), "utf8")).not.toBe("x");
  });

  it("a state folder that is a symlink to a secret folder is refused, not bound writable", async () => {
    const user = await fakeUser();
    mkdirSync(join(user.mercuryHome, "mcp"), { recursive: true });
    symlinkSync(join(user.home, ".ssh"), join(user.mercuryHome, "mcp", "files"));
    await expect(connect(user, stdioServer())).rejects.toThrow(
      /MCP server files cannot be sandboxed: .*protected location \(SSH keys and config\)/,
    );
  });

  it("with sandbox: false the server runs with the user's rights (the opt-out, and proof the read tool works)", async () => {
    const user = await fakeUser();
    const server = await connect(user, stdioServer({ sandbox: false }), unavailable);
    expect(server.state).toBe("ready");
    expect((await server.call("read_path", { path: user.secrets.sshKey }, signal())).text).toBe(
      `read: ${SSH_KEY_TEXT}`,
    );
    expect((await server.call("read_path", { path: user.secrets.dotEnv }, signal())).text).toBe(
      `read: ${DOT_ENV_TEXT}`,
    );
  });

  it("with no sandbox on the machine and no opt-out the start is refused, naming both fixes", async () => {
    const user = await fakeUser();
    await expect(connect(user, stdioServer(), unavailable)).rejects.toThrow(
      /MCP server files did not start: MCP server files runs inside the OS sandbox by default, and there is none here: bubblewrap \(bwrap\) is not installed\. Fix: install it: `sudo apt-get install bubblewrap`; or, to run this server without the sandbox, set mcp\.servers\.files\.sandbox: false in config\.yaml/,
    );
    // Through the manager (how the daemon starts servers): the server is down with that reason, no tools.
    const manager = new McpManager(
      { servers: { files: stdioServer() }, instructionsTokens: 1000 },
      {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        home: user.mercuryHome,
        wrapLaunch: mcpSandboxWrapper({
          mercuryHome: user.mercuryHome,
          userHome: user.home,
          status: unavailable,
        }),
      },
    );
    cleanups.push(() => manager.close());
    await manager.ready();
    expect(manager.tools()).toEqual([]);
    expect(manager.status()[0]).toMatchObject({ state: "down" });
    expect(manager.status()[0]?.error).toContain("sandbox: false");
  });

  it("a sandboxed server has the filtered network: none of this machine's services, nor the metadata address", async () => {
    const user = await fakeUser();
    const loopback = await countingServer("127.0.0.1");
    const lan = await countingServer(hostAddress());
    cleanups.push(async () => {
      await loopback.close();
      await lan.close();
    });
    const server = await connect(user, stdioServer());
    const attempt = async (host: string, port: number) =>
      (await server.call("connect_to", { host, port }, signal())).text;
    // The host's 127.0.0.1 is not the sandbox's: nothing listens on the sandbox's own loopback.
    expect(await attempt("127.0.0.1", loopback.port)).toBe("ECONNREFUSED");
    expect(await attempt(lan.host, lan.port)).toBe("EACCES");
    expect(await attempt("10.0.2.2", loopback.port)).toBe("EACCES");
    expect(await attempt("169.254.169.254", 80)).toBe("EACCES");
    expect(await attempt("192.168.1.1", 80)).toBe("EACCES");
    expect(loopback.connections() + lan.connections()).toBe(0);
  });

  it("with no network filter on the machine the start is refused, unless the user opted into the unfiltered network", async () => {
    const user = await fakeUser();
    const noFilter: () => SandboxStatus = () => ({
      available: true,
      kind: "bubblewrap",
      network: {
        available: false,
        reason: "the network filter needs slirp4netns",
        fix: "install slirp4netns",
      },
    });
    await expect(connect(user, stdioServer(), noFilter)).rejects.toThrow(
      /MCP server files cannot be sandboxed: .*granted the network.*install slirp4netns/,
    );
    const loopback = await countingServer("127.0.0.1");
    cleanups.push(() => loopback.close());
    const connection = new McpConnection("files", stdioServer(), {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      home: user.mercuryHome,
      wrapLaunch: mcpSandboxWrapper({
        mercuryHome: user.mercuryHome,
        userHome: user.home,
        status: noFilter,
        allowUnfilteredNetwork: true,
      }),
    });
    cleanups.push(() => connection.close());
    await connection.start();
    expect(
      (await connection.call("connect_to", { host: "127.0.0.1", port: loopback.port }, signal())).text,
    ).toBe("connected");
  });
});
