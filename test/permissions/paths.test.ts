import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkPath, nodePathFs, type PathFs } from "../../src/permissions/paths.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.cleanup());

describe("path policy", () => {
  it("allows a file in the project and returns its real path", () => {
    const decision = checkPath("src/index.ts", "write", sandbox.context);
    expect(decision).toMatchObject({
      decision: "allow",
      rule: "path.write-root",
      resolvedPath: join(sandbox.project, "src", "index.ts"),
    });
  });

  it("allows a new file under an existing folder and re-appends the missing parts", () => {
    const decision = checkPath("src/new/dir/file.ts", "write", sandbox.context);
    expect(decision).toMatchObject({
      decision: "allow",
      resolvedPath: join(sandbox.project, "src", "new", "dir", "file.ts"),
    });
  });

  it("returns the target of an in-root symlink so the tool acts on what was checked", () => {
    symlinkSync(join(sandbox.project, "src", "index.ts"), join(sandbox.project, "alias.ts"));
    const decision = checkPath("alias.ts", "read", sandbox.context);
    expect(decision.resolvedPath).toBe(join(sandbox.project, "src", "index.ts"));
  });

  it("resolves `..` after a symlink the way the kernel does (from the link's target)", () => {
    // linkdir -> ~/.ssh, so linkdir/../.aws is ~/.aws, not the project's .aws.
    const decision = checkPath("linkdir/../.aws/credentials", "read", sandbox.context);
    expect(decision).toMatchObject({ decision: "deny", rule: "path.sensitive" });
  });

  it("refuses when a folder is swapped for a symlink while the check runs", () => {
    const victim = join(sandbox.project, "swap");
    mkdirSync(victim);
    writeFileSync(join(victim, "file.txt"), "x");
    let swapped = false;
    // After the walk has seen `swap` as a plain folder, an attacker replaces it with a link to ~/.ssh.
    const racingFs: PathFs = {
      ...nodePathFs,
      lstat(path) {
        const stats = nodePathFs.lstat(path);
        if (path === victim && !swapped) {
          swapped = true;
          renameSync(victim, `${victim}.old`);
          symlinkSync(join(sandbox.home, ".ssh"), victim);
          writeFileSync(join(sandbox.home, ".ssh", "file.txt"), "secret");
        }
        return stats;
      },
    };
    const decision = checkPath("swap/file.txt", "read", sandbox.context, racingFs);
    expect(swapped).toBe(true);
    expect(decision.decision).toBe("deny");
    expect(decision.rule).toBe("path.changed-during-check");
  });

  it("follows a symlink created before the check into the secret folder", () => {
    symlinkSync(join(sandbox.home, ".ssh"), join(sandbox.project, "later"));
    expect(checkPath("later/id_rsa", "read", sandbox.context)).toMatchObject({
      decision: "deny",
      rule: "path.sensitive",
    });
  });

  it("refuses writes through a hard link and explains how to proceed", () => {
    const decision = checkPath("hardlinked.txt", "write", sandbox.context);
    expect(decision.decision).toBe("deny");
    expect(decision.reason).toMatch(/hard links/);
    expect(decision.reason).toMatch(/Copy it to a new file/);
  });

  it("still allows reading a hard-linked file inside the roots", () => {
    expect(checkPath("hardlinked.txt", "read", sandbox.context).decision).toBe("allow");
  });

  it("treats extra read roots as readable but not writable", () => {
    const context = { ...sandbox.context, readRoots: [sandbox.outside] };
    expect(checkPath(join(sandbox.outside, "notes.txt"), "read", context).decision).toBe("allow");
    expect(checkPath(join(sandbox.outside, "notes.txt"), "write", context)).toMatchObject({
      decision: "ask",
      rule: "path.outside-roots",
    });
  });

  it("refuses an empty path with a clear reason", () => {
    expect(checkPath("  ", "read", sandbox.context)).toMatchObject({
      decision: "deny",
      rule: "path.invalid",
      reason: "the path is empty",
    });
  });

  it("refuses Mercury's .env even when the project is inside MERCURY_HOME", () => {
    const context = { ...sandbox.context, writeRoots: [sandbox.mercuryHome] };
    expect(checkPath(join(sandbox.mercuryHome, ".env"), "read", context)).toMatchObject({
      decision: "deny",
      rule: "path.sensitive",
    });
  });
});
