import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pruneBaselines } from "../../src/agent/task-evidence.js";

describe("pruneBaselines", () => {
  it("keeps the newest copies and removes the rest", () => {
    const home = mkdtempSync(join(tmpdir(), "prune-"));
    for (const [index, name] of ["a", "b", "c"].entries()) {
      mkdirSync(join(home, "baselines", name), { recursive: true });
      utimesSync(join(home, "baselines", name), 1000 + index, 1000 + index);
    }
    pruneBaselines(home, 2);
    expect(readdirSync(join(home, "baselines")).sort()).toEqual(["b", "c"]);
  });

  it("skips a copy that vanished between the listing and its stat (another process pruning at once)", () => {
    const home = mkdtempSync(join(tmpdir(), "prune-"));
    mkdirSync(join(home, "baselines", "kept"), { recursive: true });
    // A link to nothing stats as missing, exactly like an entry another process removed mid-prune.
    symlinkSync(join(home, "removed-elsewhere"), join(home, "baselines", "gone"));
    expect(() => pruneBaselines(home, 1)).not.toThrow();
    expect(readdirSync(join(home, "baselines"))).toContain("kept");
  });
});
