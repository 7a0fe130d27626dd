import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LIST_MAX_ENTRIES, listDirTool } from "../../src/tools/list-dir.js";
import { expectError, expectOk, fakeContext, type TempDirs, tempDirs } from "./helpers.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
  await mkdir(join(dirs.cwd, "src/lib"), { recursive: true });
  await mkdir(join(dirs.cwd, "node_modules/pkg"), { recursive: true });
  await writeFile(join(dirs.cwd, "README.md"), "hello");
  await writeFile(join(dirs.cwd, ".env"), "SECRET=1");
  await writeFile(join(dirs.cwd, "src/index.ts"), "x".repeat(2048));
  await writeFile(join(dirs.cwd, "src/lib/util.ts"), "");
  await writeFile(join(dirs.cwd, "node_modules/pkg/index.js"), "");
  await symlink("README.md", join(dirs.cwd, "link.md"));
});
afterEach(async () => {
  await dirs.cleanup();
});

describe("list_dir", () => {
  it("lists the working directory with types and sizes, hiding dot-files", async () => {
    const context = fakeContext(dirs);
    const output = expectOk(await listDirTool.execute({}, context));
    expect(output.split("\n")).toEqual([
      `${dirs.cwd}: 4 entries`,
      "link.md -> README.md",
      "node_modules/",
      "README.md  5 B",
      "src/",
    ]);
    expect(context.requests).toEqual([{ kind: "path", path: dirs.cwd, access: "read" }]);
  });

  it("descends with depth but never into node_modules", async () => {
    const output = expectOk(await listDirTool.execute({ depth: 3, includeHidden: true }, fakeContext(dirs)));
    expect(output).toContain("src/index.ts  2.0 KB");
    expect(output).toContain("src/lib/util.ts  0 B");
    expect(output).toContain(".env  8 B");
    expect(output).toContain("node_modules/");
    expect(output).not.toContain("pkg");
  });

  it("cuts at the entry limit and says how to see the rest", async () => {
    await mkdir(join(dirs.cwd, "many"));
    await Promise.all(
      Array.from({ length: LIST_MAX_ENTRIES + 20 }, (_, i) => writeFile(join(dirs.cwd, "many", `f${i}`), "")),
    );
    const output = expectOk(await listDirTool.execute({ path: "many" }, fakeContext(dirs)));
    expect(output).toContain(`${LIST_MAX_ENTRIES + 20} entries`);
    expect(output).toMatch(/\[\.\.\. 20 more entries not shown\. List a subdirectory/);
  });

  it("fails clearly on a file, a missing path and a refusal", async () => {
    expect(expectError(await listDirTool.execute({ path: "README.md" }, fakeContext(dirs)))).toMatch(
      /not a directory/,
    );
    expect(expectError(await listDirTool.execute({ path: "gone" }, fakeContext(dirs)))).toMatch(
      /does not exist/,
    );
    expect(expectError(await listDirTool.execute({}, fakeContext(dirs, "deny")))).toMatch(
      /Permission denied/,
    );
  });

  it("says when a directory is empty", async () => {
    await mkdir(join(dirs.cwd, "empty"));
    expect(expectOk(await listDirTool.execute({ path: "empty" }, fakeContext(dirs)))).toMatch(
      /0 entries \(empty\)/,
    );
  });
});
