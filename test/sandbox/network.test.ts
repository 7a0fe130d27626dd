import { existsSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filterRoutes } from "../../src/sandbox/network-filter.js";
import { scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool } from "../../src/tools/run-command.js";
import { expectError, expectOk, fakeContext } from "../tools/helpers.js";
import { type FakeUser, hostPidsWith, makeFakeUser, requireSandbox, waitFor } from "./fixture.js";
import {
  type CountingServer,
  countingServer,
  hostAddress,
  PROBE_SCRIPT,
  parseProbe,
  probeCommand,
} from "./network-probe.js";

/**
 * A command granted the network, in the real sandbox with the real filter (slirp4netns; CI installs
 * it): servers on this machine's loopback and on its own LAN address, the metadata address and the
 * private ranges are all out of reach, while slirp's DNS forwarder stays routable.
 */
let user: FakeUser;
let loopback: CountingServer;
let lan: CountingServer;

beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
  loopback = await countingServer("127.0.0.1");
  lan = await countingServer(hostAddress());
});
afterAll(async () => {
  await loopback?.close();
  await lan?.close();
  await user?.cleanup();
});

function tool() {
  return createRunCommandTool({
    killGraceMs: 300,
    env: { ...scrubbedEnv(), HOME: user.home },
    sandbox: { userHome: user.home, require: true },
  });
}

function granted() {
  return fakeContext({ cwd: user.workspace, home: user.mercuryHome }, () => ({
    allowed: true,
    rule: "test.approved",
    network: true,
  }));
}

async function reachable(host: string, port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

describe("a command granted the network", () => {
  it("reaches none of this machine's services, the metadata address or private ranges; DNS is routed to slirp", async () => {
    // The servers are there: from the host both answer.
    expect(await reachable(loopback.host, loopback.port)).toBe(true);
    expect(await reachable(lan.host, lan.port)).toBe(true);
    const before = loopback.connections() + lan.connections();
    const targets = [
      `127.0.0.1:${loopback.port}`,
      `${lan.host}:${lan.port}`,
      `10.0.2.2:${loopback.port}`,
      "169.254.169.254:80",
      "10.1.2.3:80",
      "172.16.0.1:80",
      "192.168.1.1:80",
      "100.64.0.1:80",
      "224.0.0.1:80",
      `[::1]:${loopback.port}`,
      "[fd00::1]:80",
      // (IPv6 link-local on tap0 reaches only slirp4netns itself, which runs without IPv6.)
      "udp:10.0.2.3:9",
      "udp:192.168.1.1:53",
    ];
    const result = await tool().execute(
      {
        command: `${probeCommand(targets)}; cat /etc/resolv.conf; ip -6 route add prohibit 2001:db8::/32 || echo route-change-refused`,
      },
      granted(),
    );
    const output = expectOk(result);
    expect(output).toContain("sandbox: bubblewrap (network granted, filtered");
    const probe = parseProbe(output);
    // Prohibit routes answer at once with EACCES: refused by the filter, not by a missing server.
    for (const target of [
      `${lan.host}:${lan.port}`,
      `10.0.2.2:${loopback.port}`,
      "169.254.169.254:80",
      "10.1.2.3:80",
      "172.16.0.1:80",
      "192.168.1.1:80",
      "100.64.0.1:80",
      "224.0.0.1:80",
      "[fd00::1]:80",
      "udp:192.168.1.1:53",
    ])
      expect(probe[target], target).toMatch(/^(EACCES|ENETUNREACH|EPERM)$/);
    // 127.0.0.1 and ::1 inside are the sandbox's own loopback, where nothing listens.
    expect(probe[`127.0.0.1:${loopback.port}`]).toBe("ECONNREFUSED");
    expect(probe[`[::1]:${loopback.port}`]).toBe("ECONNREFUSED");
    expect(probe["udp:10.0.2.3:9"]).toBe("sent");
    expect(output).toContain("nameserver 10.0.2.3");
    // No CAP_NET_ADMIN inside: the command cannot change the filter.
    expect(output).toContain("route-change-refused");
    expect(loopback.connections() + lan.connections()).toBe(before);
  });

  it("without the network reaches nothing at all", async () => {
    const result = await tool().execute(
      { command: probeCommand([`127.0.0.1:${loopback.port}`, `${lan.host}:${lan.port}`, "udp:10.0.2.3:53"]) },
      fakeContext({ cwd: user.workspace, home: user.mercuryHome }, "allow"),
    );
    const output = expectOk(result);
    expect(output).toContain("sandbox: bubblewrap (no network)");
    const probe = parseProbe(output);
    expect(probe[`127.0.0.1:${loopback.port}`]).toBe("ECONNREFUSED");
    expect(probe[`${lan.host}:${lan.port}`]).toBe("ENETUNREACH");
    expect(probe["udp:10.0.2.3:53"]).toBe("ENETUNREACH");
  });

  it("is refused, naming the fix, when the filter cannot run here; the host network only by the user's opt-in", async () => {
    const noFilter = () =>
      ({
        available: true,
        kind: "bubblewrap",
        network: {
          available: false,
          reason: "the network filter needs slirp4netns",
          fix: "install slirp4netns",
        },
      }) as const;
    const refusing = createRunCommandTool({
      sandbox: { userHome: user.home, require: true, status: noFilter },
    });
    const error = expectError(await refusing.execute({ command: "echo ran > ran.txt" }, granted()));
    expect(error).toContain("Not run (sandbox unavailable)");
    expect(error).toContain("install slirp4netns");
    expect(existsSync(join(user.workspace, "ran.txt"))).toBe(false);
    // The same command with no network granted runs as usual.
    expectOk(
      await refusing.execute(
        { command: "echo ran" },
        fakeContext({ cwd: user.workspace, home: user.mercuryHome }),
      ),
    );

    const optedIn = createRunCommandTool({
      sandbox: { userHome: user.home, require: true, status: noFilter, allowUnfilteredNetwork: true },
    });
    const before = loopback.connections();
    const output = expectOk(
      await optedIn.execute({ command: probeCommand([`127.0.0.1:${loopback.port}`]) }, granted()),
    );
    expect(output).toContain("the host's whole network (sandbox.unfilteredNetwork is on)");
    expect(parseProbe(output)[`127.0.0.1:${loopback.port}`]).toBe("connected");
    expect(loopback.connections()).toBe(before + 1);
  });

  it("is granted by the user's configuration (sandbox.networkCommands), filtered the same, and to nothing else", async () => {
    const configured = createRunCommandTool({
      env: { ...scrubbedEnv(), HOME: user.home },
      sandbox: { userHome: user.home, require: true, networkCommands: ["node probe.cjs"] },
    });
    // A pattern matches plain words only, so the probe runs from a file here.
    writeFileSync(join(user.workspace, "probe.cjs"), PROBE_SCRIPT);
    // Allowed by the policy (as --yes would), with no network in the approval itself.
    const allowedOnly = () => fakeContext({ cwd: user.workspace, home: user.mercuryHome }, "allow");
    const matching = expectOk(
      await configured.execute(
        { command: `node probe.cjs ${lan.host}:${lan.port} udp:10.0.2.3:9` },
        allowedOnly(),
      ),
    );
    expect(matching).toContain('by sandbox.networkCommands "node probe.cjs"');
    expect(parseProbe(matching)).toEqual({ [`${lan.host}:${lan.port}`]: "EACCES", "udp:10.0.2.3:9": "sent" });
    // The same probe behind a shell operator does not match the pattern: no network at all.
    const chained = expectOk(
      await configured.execute({ command: "true && node probe.cjs udp:10.0.2.3:9" }, allowedOnly()),
    );
    expect(chained).toContain("sandbox: bubblewrap (no network)");
    expect(parseProbe(chained)).toEqual({ "udp:10.0.2.3:9": "ENETUNREACH" });
  });

  it("leaves no helper process behind (slirp4netns, the supervisor)", async () => {
    const marker = "net-leftover-marker-5b1";
    expectOk(await tool().execute({ command: `echo ${marker}` }, granted()));
    // Other test files run networked commands at the same time, so "no slirp4netns at all" is not
    // ours to assert: ours would still be our descendant, or an orphan (re-parented to pid 1) if its
    // supervisor died first. A transient orphan of another file ends by itself; a leak keeps this
    // wait going until the test's timeout fails it.
    await waitFor(async () => (await strayHelpers()).length === 0);
    expect(await hostPidsWith(marker)).toEqual([]);
  });
});

describe("the filter's routes", () => {
  it("block this machine's own addresses, the private and link-local ranges and all of IPv6", () => {
    const routes = filterRoutes(["192.0.2.2", "127.0.0.1", "8.8.4.4"]).split("\n");
    for (const expected of [
      "route add prohibit 8.8.4.4/32",
      "route add prohibit 127.0.0.0/8",
      "route add prohibit 169.254.0.0/16",
      "route add prohibit 10.0.0.0/8",
      "route add prohibit 10.0.2.2/32",
      "route add prohibit ::/0",
    ])
      expect(routes).toContain(expected);
    expect(new Set(routes).size).toBe(routes.length);
  });
});

/** slirp4netns processes that descend from this test process, or that lost their parent (pid 1). */
async function strayHelpers(): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // The process ended while we looked: it is not running, which is what we count.
    }
  }
  const descendsFromUs = (pid: number): boolean => {
    for (let current = parents.get(pid); current !== undefined && current > 1; current = parents.get(current))
      if (current === process.pid) return true;
    return false;
  };
  return (await hostPidsWith("slirp4netns", (argv) => argv[0]?.endsWith("slirp4netns") ?? false)).filter(
    (pid) => parents.get(pid) === 1 || descendsFromUs(pid),
  );
}
