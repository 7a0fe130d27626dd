import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WRITE_MAX_BYTES, writeFileTool } from "../../src/tools/write-file.js";
import { expectError, expectOk, fakeContext, type TempDirs, tempDirs } from "./helpers.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
});
afterEach(async () => {
  await dirs.cleanup();
});

describe("write_file", () => {
  it("creates missing parent directories and reports bytes and lines", async () => {
    const context = fakeContext(dirs);
    const output = expectOk(
      await writeFileTool.execute({ path: "deep/er/new.txt", content: "héllo\nworld\n" }, context),
    );
    const target = join(dirs.cwd, "deep/er/new.txt");
    expect(await readFile(target, "utf8")).toBe("héllo\nworld\n");
    expect(output).toBe(`Created ${target}: 13 bytes, 2 lines written.`);
    expect(context.requests).toEqual([{ kind: "path", path: target, access: "write" }]);
  });

  it("says when it overwrote an existing file", async () => {
    await writeFile(join(dirs.cwd, "a.txt"), "old");
    const output = expectOk(
      await writeFileTool.execute({ path: "a.txt", content: "new" }, fakeContext(dirs)),
    );
    expect(output).toMatch(/^Overwrote .*a\.txt: 3 bytes, 1 lines written\.$/);
    expect(await readFile(join(dirs.cwd, "a.txt"), "utf8")).toBe("new");
  });

  it("writes nothing when the engine refuses", async () => {
    const error = expectError(
      await writeFileTool.execute({ path: "x/y.txt", content: "z" }, fakeContext(dirs, "deny")),
    );
    expect(error).toMatch(/Permission denied: write access/);
    await expect(readFile(join(dirs.cwd, "x/y.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("writes to the engine's resolvedPath", async () => {
    const resolved = join(dirs.cwd, "resolved.txt");
    const context = fakeContext(dirs, () => ({ allowed: true, rule: "t", resolvedPath: resolved }));
    expectOk(await writeFileTool.execute({ path: "asked.txt", content: "ok" }, context));
    expect(await readFile(resolved, "utf8")).toBe("ok");
    await expect(readFile(join(dirs.cwd, "asked.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses content over the size limit before asking for permission", async () => {
    const context = fakeContext(dirs);
    const error = expectError(
      await writeFileTool.execute({ path: "big.txt", content: "x".repeat(WRITE_MAX_BYTES + 1) }, context),
    );
    expect(error).toMatch(/over the .*-byte limit/);
    expect(context.requests).toHaveLength(0);
  });

  it("reports a directory in the way", async () => {
    const error = expectError(await writeFileTool.execute({ path: ".", content: "x" }, fakeContext(dirs)));
    expect(error).toMatch(/is a directory/);
  });
});

describe("write_file against a symlink swapped in after the check", () => {
  it("refuses to follow it when the engine resolved the path", async () => {
    const { symlink } = await import("node:fs/promises");
    const outside = join(dirs.root, "outside.txt");
    await writeFile(outside, "untouched");
    const link = join(dirs.cwd, "swapped.txt");
    await symlink(outside, link);
    // The engine checked "swapped.txt" while it was a plain file; it is a link by the time of the write.
    const context = fakeContext(dirs, () => ({ allowed: true, rule: "t", resolvedPath: link }));
    const error = expectError(
      await writeFileTool.execute({ path: "swapped.txt", content: "pwned" }, context),
    );
    expect(error).toMatch(/became a symbolic link after the permission check/);
    expect(await readFile(outside, "utf8")).toBe("untouched");
  });
});

describe("write_file with an engine that resolves paths", () => {
  it("creates a new nested file and writes an existing symlink's target", async () => {
    const { resolvingAuthorizer } = await import("./helpers.js");
    const { symlink } = await import("node:fs/promises");
    const context = fakeContext(dirs, resolvingAuthorizer);
    expectOk(await writeFileTool.execute({ path: "n/e/w.txt", content: "new" }, context));
    expect(await readFile(join(dirs.cwd, "n/e/w.txt"), "utf8")).toBe("new");
    await writeFile(join(dirs.cwd, "real.txt"), "old");
    await symlink(join(dirs.cwd, "real.txt"), join(dirs.cwd, "alias.txt"));
    expectOk(await writeFileTool.execute({ path: "alias.txt", content: "via alias" }, context));
    expect(await readFile(join(dirs.cwd, "real.txt"), "utf8")).toBe("via alias");
  });
});

describe("write_file on special files", () => {
  it("refuses to write into a FIFO, which would block until someone reads it", async () => {
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [join(dirs.cwd, "pipe")]);
    const error = expectError(await writeFileTool.execute({ path: "pipe", content: "x" }, fakeContext(dirs)));
    expect(error).toMatch(/not a regular file/);
  });
});
