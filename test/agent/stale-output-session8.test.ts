import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hiddenCheckChanges } from "../../src/agent/completion/hidden-checks.js";
import {
  builtOutputsDigest,
  namedBuildOutputs,
  staleBuildReason,
} from "../../src/agent/completion/stale-output.js";

function project(scripts: Record<string, string>): string {
  const cwd = mkdtempSync(join(tmpdir(), "mercury-stale-"));
  writeFileSync(join(cwd, "package.json"), JSON.stringify({ name: "p", scripts }));
  mkdirSync(join(cwd, "dist"));
  writeFileSync(join(cwd, "dist", "check.js"), "ok\n");
  return cwd;
}

const npmTest = { command: "npm test", source: "package.json script test" };

describe("stale build output (session 8)", () => {
  it("names build paths from the command, the script and its pre-script; not sources or globs", async () => {
    const cwd = project({
      pretest: "node build/prep.js",
      test: "node ./dist/check.js src/x.js 'out/**/*.js'",
    });
    expect(await namedBuildOutputs(cwd, npmTest)).toEqual(["build/prep.js", "dist/check.js"]);
    expect(await namedBuildOutputs(cwd, null)).toEqual([]);
  });

  it("is stale only when every named output is unchanged and the task changed more than prose", async () => {
    const cwd = project({ test: "node dist/check.js" });
    const before = await builtOutputsDigest(cwd, ["dist/check.js"]);
    const code = [{ path: "src/value.js", added: 1, removed: 1 }];
    const same = await builtOutputsDigest(cwd, ["dist/check.js"]);
    expect(staleBuildReason("npm test", before, same, code)).toContain("runs dist/check.js");
    expect(
      staleBuildReason("npm test", before, same, [{ path: "README.md", added: 1, removed: 0 }]),
    ).toBeNull();
    writeFileSync(join(cwd, "dist", "check.js"), "rebuilt\n");
    const rebuilt = await builtOutputsDigest(cwd, ["dist/check.js"]);
    expect(staleBuildReason("npm test", before, rebuilt, code)).toBeNull();
    // Absent at the start: the check failed then; nothing to call stale.
    expect(
      staleBuildReason("npm test", { "dist/none.js": "absent" }, { "dist/none.js": "absent" }, code),
    ).toBeNull();
  });

  it("ignored check files: created, modified and deleted are each a change", () => {
    expect(
      hiddenCheckChanges({ "a.test.js": "1", "jest.config.js": "2" }, { "a.test.js": "9", GNUmakefile: "3" }),
    ).toEqual([
      { path: "GNUmakefile", change: "Makefile (targets) created (git ignores it, so no diff shows it)" },
      { path: "a.test.js", change: "test modified (git ignores it, so no diff shows it)" },
      {
        path: "jest.config.js",
        change: "test runner configuration deleted (git ignores it, so no diff shows it)",
      },
    ]);
  });
});
