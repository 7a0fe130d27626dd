import { existsSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeSandbox, networkApprovalNote } from "../../src/sandbox/describe.js";
import { detectSandbox } from "../../src/sandbox/detect.js";
import { requireSandbox } from "./fixture.js";

/** A PATH holding only the named programs (links to the real ones). */
function pathWith(programs: string[]): string {
  const bin = mkdtempSync(join(tmpdir(), "mercury-path-"));
  for (const program of programs) {
    const real = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
      .map((dir) => join(dir, program))
      .find((candidate) => existsSync(candidate));
    if (!real) throw new Error(`${program} is not installed here`);
    symlinkSync(real, join(bin, program));
  }
  return bin;
}

describe("what an approval of a networked command says it gives", () => {
  it("tells the person what the command will reach, by what this machine can filter", () => {
    expect(
      networkApprovalNote({
        available: true,
        kind: "bubblewrap",
        network: { available: true, kind: "slirp4netns" },
      }),
    ).toContain("the public internet and DNS, never this machine, its loopback, your LAN, private ranges");
    expect(
      networkApprovalNote({
        available: true,
        kind: "bubblewrap",
        network: { available: false, reason: "no slirp4netns", fix: "install it" },
      }),
    ).toContain("it will be refused unless sandbox.unfilteredNetwork");
    expect(networkApprovalNote({ available: false, reason: "no bwrap", fix: "install it" })).toContain(
      "no OS sandbox filters it",
    );
    expect(networkApprovalNote({ available: true, kind: "sandbox-exec" })).toContain(
      "cannot filter private ranges",
    );
  });
});

describe("what doctor and status say about the network filter", () => {
  it("with every program present: the filter is there and status says what a networked command reaches", () => {
    requireSandbox();
    const status = detectSandbox();
    expect(describeSandbox(status)).toContain(
      "reaches the internet through slirp4netns, never this machine, loopback, private or link-local addresses",
    );
  });

  it("without slirp4netns: the sandbox works, the filter is missing, and the fix names the package", () => {
    const status = detectSandbox({ path: pathWith(["bwrap", "unshare", "setpriv", "ip"]) });
    expect(status).toMatchObject({
      available: true,
      kind: "bubblewrap",
      network: { available: false, reason: expect.stringContaining("slirp4netns") },
    });
    const line = describeSandbox(status);
    expect(line).toContain("NO network filter");
    expect(line).toContain("commands that need the network are refused");
    expect(line).toContain("sudo apt-get install slirp4netns");
    expect(line).toContain("sandbox.unfilteredNetwork");
  });
});
