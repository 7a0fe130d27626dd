import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deleteFileTool, listTrash, restoreFromTrash } from "../../src/tools/delete-file.js";
import { expectError, expectOk, fakeContext, type TempDirs, tempDirs } from "./helpers.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
});
afterEach(async () => {
  await dirs.cleanup();
});

const gone = async (path: string) => {
  await expect(lstat(path)).rejects.toThrow(/ENOENT/);
};

describe("delete_file", () => {
  it("moves a file to $MERCURY_HOME/trash with a manifest, and restores it", async () => {
    const file = join(dirs.cwd, "notes.txt");
    await writeFile(file, "keep me");
    const context = fakeContext(dirs);
    const output = expectOk(await deleteFileTool.execute({ path: "notes.txt" }, context));
    expect(context.requests).toEqual([{ kind: "path", path: file, access: "write" }]);
    await gone(file);

    const [entry, ...rest] = await listTrash(dirs.home);
    expect(rest).toEqual([]);
    expect(entry?.originalPath).toBe(file);
    expect(entry?.kind).toBe("file");
    expect(entry?.taskId).toBe("task-test");
    expect(entry?.trashName).toMatch(/^\d{8}T\d{9}Z-notes\.txt$/);
    expect(output).toContain(entry?.trashName);
    expect(await readFile(join(dirs.home, "trash", entry?.trashName ?? ""), "utf8")).toBe("keep me");

    await restoreFromTrash(dirs.home, entry?.trashName ?? "");
    expect(await readFile(file, "utf8")).toBe("keep me");
    expect(await listTrash(dirs.home)).toEqual([]);
  });

  it("trashes a whole directory and restores it, recreating missing parents", async () => {
    const dir = join(dirs.cwd, "a/b");
    await mkdir(join(dir, "c"), { recursive: true });
    await writeFile(join(dir, "c/x.txt"), "x");
    expectOk(await deleteFileTool.execute({ path: "a" }, fakeContext(dirs)));
    await gone(join(dirs.cwd, "a"));
    const [entry] = await listTrash(dirs.home);
    expect(entry?.kind).toBe("directory");
    await restoreFromTrash(dirs.home, entry?.trashName ?? "");
    expect(await readFile(join(dir, "c/x.txt"), "utf8")).toBe("x");
  });

  it("removes a symlink itself, never its target", async () => {
    await writeFile(join(dirs.cwd, "target.txt"), "target");
    await symlink(join(dirs.cwd, "target.txt"), join(dirs.cwd, "link"));
    expectOk(await deleteFileTool.execute({ path: "link" }, fakeContext(dirs)));
    expect(await readFile(join(dirs.cwd, "target.txt"), "utf8")).toBe("target");
    const [entry] = await listTrash(dirs.home);
    expect(entry?.kind).toBe("symlink");
    expect(await readlink(join(dirs.home, "trash", entry?.trashName ?? ""))).toBe(
      join(dirs.cwd, "target.txt"),
    );
  });

  it("keeps two deletions of the same name apart", async () => {
    for (const content of ["first", "second"]) {
      await writeFile(join(dirs.cwd, "same.txt"), content);
      expectOk(await deleteFileTool.execute({ path: "same.txt" }, fakeContext(dirs)));
    }
    const entries = await listTrash(dirs.home);
    expect(entries).toHaveLength(2);
    const contents = await Promise.all(
      entries.map((e) => readFile(join(dirs.home, "trash", e.trashName), "utf8")),
    );
    expect(contents.sort()).toEqual(["first", "second"]);
  });

  it("refuses to restore over a file that exists again, unless asked to overwrite (which trashes it)", async () => {
    const file = join(dirs.cwd, "f.txt");
    await writeFile(file, "old");
    expectOk(await deleteFileTool.execute({ path: "f.txt" }, fakeContext(dirs)));
    await writeFile(file, "new");
    const [entry] = await listTrash(dirs.home);
    const name = entry?.trashName ?? "";
    await expect(restoreFromTrash(dirs.home, name)).rejects.toThrow(
      /exists again; restoring would overwrite it/,
    );
    await restoreFromTrash(dirs.home, name, { overwrite: true });
    expect(await readFile(file, "utf8")).toBe("old");
    const [displaced] = await listTrash(dirs.home);
    expect(await readFile(join(dirs.home, "trash", displaced?.trashName ?? ""), "utf8")).toBe("new");
  });

  it("explains unknown names, invalid names and damaged manifests", async () => {
    await expect(restoreFromTrash(dirs.home, "nothing")).rejects.toThrow(
      /Nothing named nothing is in the trash/,
    );
    await expect(restoreFromTrash(dirs.home, "../etc")).rejects.toThrow(/Invalid trash name/);
    await mkdir(join(dirs.home, "trash/.manifests"), { recursive: true });
    await writeFile(join(dirs.home, "trash/.manifests/bad.json"), JSON.stringify({ trashName: "bad" }));
    await expect(listTrash(dirs.home)).rejects.toThrow(/manifest .* is damaged/);
  });

  it("fails clearly on a missing file, a denied path and the trash itself", async () => {
    expect(expectError(await deleteFileTool.execute({ path: "nope" }, fakeContext(dirs)))).toMatch(
      /does not exist/,
    );
    await writeFile(join(dirs.cwd, "kept.txt"), "k");
    expect(
      expectError(await deleteFileTool.execute({ path: "kept.txt" }, fakeContext(dirs, "deny"))),
    ).toMatch(/Permission denied/);
    expect(await readFile(join(dirs.cwd, "kept.txt"), "utf8")).toBe("k");
    await mkdir(join(dirs.home, "trash"), { recursive: true });
    expect(
      expectError(await deleteFileTool.execute({ path: join(dirs.home, "trash") }, fakeContext(dirs))),
    ).toMatch(/inside Mercury's trash/);
    expect(await readdir(join(dirs.home, "trash"))).toEqual([]);
  });
});

describe("delete_file with an engine that resolves symlinks", () => {
  it("deletes the link, not the target the engine resolved it to, and asks about the link's folder", async () => {
    const { resolvingAuthorizer } = await import("./helpers.js");
    const target = join(dirs.cwd, "target.txt");
    await writeFile(target, "target");
    await symlink(target, join(dirs.cwd, "link"));
    const context = fakeContext(dirs, resolvingAuthorizer);
    expectOk(await deleteFileTool.execute({ path: "link" }, context));
    expect(await readFile(target, "utf8")).toBe("target");
    await gone(join(dirs.cwd, "link"));
    expect(context.requests).toEqual([{ kind: "path", path: dirs.cwd, access: "write" }]);
  });

  it("a link in a refused folder is not deleted even when its target is allowed", async () => {
    const outsideDir = join(dirs.root, "elsewhere");
    await mkdir(outsideDir);
    await writeFile(join(dirs.cwd, "t.txt"), "t");
    await symlink(join(dirs.cwd, "t.txt"), join(outsideDir, "link"));
    const context = fakeContext(dirs, (request) =>
      request.kind === "path" && request.path.startsWith(dirs.cwd)
        ? { allowed: true, rule: "root" }
        : { allowed: false, rule: "outside", reason: "outside the roots" },
    );
    expect(expectError(await deleteFileTool.execute({ path: join(outsideDir, "link") }, context))).toMatch(
      /Permission denied/,
    );
    expect(await readlink(join(outsideDir, "link"))).toBe(join(dirs.cwd, "t.txt"));
  });
});
