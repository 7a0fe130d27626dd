import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectSandbox, detectSandboxSoon } from "../../src/sandbox/detect.js";

/** A PATH holding one program named bwrap, a script that exits with `code` and says why. */
function pathWithFakeBwrap(code: number): string {
  const bin = mkdtempSync(join(tmpdir(), "mercury-bwrap-"));
  const script = join(bin, "bwrap");
  writeFileSync(script, `#!/bin/sh\necho "no user namespaces here" >&2\nexit ${code}\n`);
  chmodSync(script, 0o755);
  return bin;
}

describe("the sandbox probe that runs beside the task (mercury run's first request does not wait for it)", () => {
  it("gives the same answer as the blocking probe on this machine", async () => {
    const path = process.env.PATH ?? "";
    const soon = await detectSandboxSoon({ path: `${path}:/nonexistent-soon` });
    expect(soon).toEqual(detectSandbox({ path: `${path}:/nonexistent-sync` }));
  });

  it("reports a bwrap that cannot build a sandbox, with its own words, and caches the answer", async () => {
    const path = pathWithFakeBwrap(1);
    const status = await detectSandboxSoon({ path });
    expect(status.available).toBe(false);
    if (status.available) return;
    expect(status.reason).toContain("cannot create a sandbox here: no user namespaces here");
    // The blocking form reads the cache the background probe filled: same object, no second trial.
    expect(detectSandbox({ path })).toBe(status);
  });

  it("with no bwrap on the PATH says to install bubblewrap", async () => {
    const status = await detectSandboxSoon({
      path: mkdtempSync(join(tmpdir(), "mercury-empty-")),
      platform: "linux",
    });
    expect(status).toMatchObject({ available: false, reason: "bubblewrap (bwrap) is not installed" });
  });
});
