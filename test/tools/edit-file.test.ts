import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editFileTool } from "../../src/tools/edit-file.js";
import { expectError, expectOk, fakeContext, type TempDirs, tempDirs } from "./helpers.js";

let dirs: TempDirs;
let file: string;
const source = [
  "function greet(name) {",
  '  return "hello " + name;',
  "}",
  "",
  "function part() {",
  "  return 1;",
  "}",
  "function part2() {",
  "  return 1;",
  "}",
  "",
].join("\n");

beforeEach(async () => {
  dirs = await tempDirs();
  file = join(dirs.cwd, "code.js");
  await writeFile(file, source);
});
afterEach(async () => {
  await dirs.cleanup();
});

describe("edit_file", () => {
  it("replaces a unique match and reports where", async () => {
    const context = fakeContext(dirs);
    const output = expectOk(
      await editFileTool.execute({ path: "code.js", oldText: '"hello "', newText: '"hi "' }, context),
    );
    expect(await readFile(file, "utf8")).toBe(source.replace('"hello "', '"hi "'));
    expect(output).toMatch(/replaced 1 occurrence \(first at line 2; -1 \+1 lines\)/);
    expect(context.requests).toEqual([{ kind: "path", path: file, access: "write" }]);
  });

  it("refuses a non-unique match, says how many and where, and leaves the file alone", async () => {
    const error = expectError(
      await editFileTool.execute(
        { path: "code.js", oldText: "  return 1;", newText: "  return 2;" },
        fakeContext(dirs),
      ),
    );
    expect(error).toMatch(/occurs 2 times .* \(at lines 6, 9\)/);
    expect(error).toMatch(/Include more surrounding lines/);
    expect(await readFile(file, "utf8")).toBe(source);
  });

  it("replaces every occurrence with replaceAll", async () => {
    const output = expectOk(
      await editFileTool.execute(
        { path: "code.js", oldText: "return 1;", newText: "return 2;", replaceAll: true },
        fakeContext(dirs),
      ),
    );
    expect(output).toMatch(/replaced 2 occurrences/);
    expect(await readFile(file, "utf8")).toBe(source.replaceAll("return 1;", "return 2;"));
  });

  it("on a missing match shows the nearest lines with numbers", async () => {
    const error = expectError(
      await editFileTool.execute(
        { path: "code.js", oldText: 'return "helo " + nme;', newText: "x" },
        fakeContext(dirs),
      ),
    );
    expect(error).toMatch(/oldText was not found/);
    expect(error).toContain('2\t  return "hello " + name;');
    expect(error).toMatch(/around line 2/);
    expect(await readFile(file, "utf8")).toBe(source);
  });

  it("says when only whitespace differs", async () => {
    const error = expectError(
      await editFileTool.execute(
        { path: "code.js", oldText: 'function greet(name) {\n    return "hello " + name;', newText: "x" },
        fakeContext(dirs),
      ),
    );
    expect(error).toMatch(/matches if whitespace is ignored/);
  });

  it("says so when nothing is even similar", async () => {
    const error = expectError(
      await editFileTool.execute({ path: "code.js", oldText: "zzzzqqqq", newText: "x" }, fakeContext(dirs)),
    );
    expect(error).toMatch(/No similar line exists/);
  });

  it("matches LF text in a CRLF file and keeps CRLF", async () => {
    await writeFile(file, "one\r\ntwo\r\nthree\r\n");
    expectOk(
      await editFileTool.execute(
        { path: "code.js", oldText: "one\ntwo", newText: "1\n2" },
        fakeContext(dirs),
      ),
    );
    expect(await readFile(file, "utf8")).toBe("1\r\n2\r\nthree\r\n");
  });

  it("refuses identical old and new text, a missing file, and a denied path", async () => {
    expect(
      expectError(
        await editFileTool.execute({ path: "code.js", oldText: "a", newText: "a" }, fakeContext(dirs)),
      ),
    ).toMatch(/identical/);
    expect(
      expectError(
        await editFileTool.execute({ path: "none.js", oldText: "a", newText: "b" }, fakeContext(dirs)),
      ),
    ).toMatch(/does not exist/);
    expect(
      expectError(
        await editFileTool.execute(
          { path: "code.js", oldText: "part", newText: "b" },
          fakeContext(dirs, "deny"),
        ),
      ),
    ).toMatch(/Permission denied/);
    expect(await readFile(file, "utf8")).toBe(source);
  });

  it("treats $ patterns in newText literally", async () => {
    expectOk(
      await editFileTool.execute(
        { path: "code.js", oldText: "return 1;\n}\nfunction part2", newText: "$& $1 $$" },
        fakeContext(dirs),
      ),
    );
    expect(await readFile(file, "utf8")).toContain("$& $1 $$");
  });
});

describe("edit_file against a symlink swapped in after the check", () => {
  it("does not write through it", async () => {
    const { symlink } = await import("node:fs/promises");
    const outside = join(dirs.root, "outside.js");
    await writeFile(outside, "const a = 1;\n");
    const link = join(dirs.cwd, "link.js");
    await symlink(outside, link);
    const context = fakeContext(dirs, () => ({ allowed: true, rule: "t", resolvedPath: link }));
    const error = expectError(
      await editFileTool.execute({ path: "link.js", oldText: "a = 1", newText: "a = 2" }, context),
    );
    expect(error).toMatch(/became a symbolic link after the permission check/);
    expect(await readFile(outside, "utf8")).toBe("const a = 1;\n");
  });
});

describe("edit_file on special files", () => {
  it("refuses a FIFO and a directory", async () => {
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [join(dirs.cwd, "pipe")]);
    expect(
      expectError(
        await editFileTool.execute({ path: "pipe", oldText: "a", newText: "b" }, fakeContext(dirs)),
      ),
    ).toMatch(/not a regular file/);
    expect(
      expectError(await editFileTool.execute({ path: ".", oldText: "a", newText: "b" }, fakeContext(dirs))),
    ).toMatch(/is a directory/);
  });
});
