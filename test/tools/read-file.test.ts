import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { READ_MAX_LINES, readFileTool } from "../../src/tools/read-file.js";
import { expectError, expectOk, fakeContext, type TempDirs, tempDirs } from "./helpers.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
});
afterEach(async () => {
  await dirs.cleanup();
});

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

describe("read_file", () => {
  it("reads a whole small file with line numbers and asks for read access on the absolute path", async () => {
    await writeFile(join(dirs.cwd, "a.txt"), "alpha\nbeta\n");
    const context = fakeContext(dirs);
    const output = expectOk(await readFileTool.execute({ path: "a.txt" }, context));
    expect(output).toBe(`${join(dirs.cwd, "a.txt")} (lines 1-2 of 2)\n1\talpha\n2\tbeta`);
    expect(context.requests).toEqual([{ kind: "path", path: join(dirs.cwd, "a.txt"), access: "read" }]);
  });

  it("returns only the requested range", async () => {
    await writeFile(join(dirs.cwd, "n.txt"), numbered(100));
    const output = expectOk(
      await readFileTool.execute({ path: "n.txt", startLine: 10, endLine: 12 }, fakeContext(dirs)),
    );
    expect(output.split("\n").slice(1)).toEqual(["10\tline 10", "11\tline 11", "12\tline 12"]);
    expect(output).toContain("(lines 10-12 of 100)");
  });

  it("clamps an end past the file and refuses a start past it", async () => {
    await writeFile(join(dirs.cwd, "n.txt"), numbered(5));
    const tail = expectOk(
      await readFileTool.execute({ path: "n.txt", startLine: 4, endLine: 99 }, fakeContext(dirs)),
    );
    expect(tail).toContain("(lines 4-5 of 5)");
    const error = expectError(await readFileTool.execute({ path: "n.txt", startLine: 9 }, fakeContext(dirs)));
    expect(error).toMatch(/startLine 9 is past the end .* 5 lines/);
  });

  it("keeps head and tail of a long file and says how to read the omitted lines", async () => {
    const total = READ_MAX_LINES + 1000;
    await writeFile(join(dirs.cwd, "big.txt"), numbered(total));
    const output = expectOk(await readFileTool.execute({ path: "big.txt" }, fakeContext(dirs)));
    expect(output).toContain("1\tline 1\n");
    expect(output).toContain(`${total}\tline ${total}`);
    const note = /lines (\d+)-(\d+) omitted .*Use read_file with startLine=(\d+)/.exec(output);
    expect(note).not.toBeNull();
    const [, first, last, start] = note ?? [];
    expect(Number(first)).toBe(Number(start));
    // Every line is either shown or in the omitted interval, none twice.
    const shown = output.split("\n").filter((l) => /^\d+\t/.test(l)).length;
    expect(shown + (Number(last) - Number(first) + 1)).toBe(total);
    expect(output).not.toContain(`\n${first}\tline ${first}\n`);
  });

  it("cuts an enormous single line", async () => {
    await writeFile(join(dirs.cwd, "wide.txt"), "x".repeat(50_000));
    const output = expectOk(await readFileTool.execute({ path: "wide.txt" }, fakeContext(dirs)));
    expect(output).toContain("[line cut]");
    expect(output.length).toBeLessThan(3000);
  });

  it("refuses binary files, directories and missing files with clear messages", async () => {
    await writeFile(join(dirs.cwd, "bin.dat"), Buffer.from([0x50, 0x4b, 0x00, 0x01]));
    expect(expectError(await readFileTool.execute({ path: "bin.dat" }, fakeContext(dirs)))).toMatch(/binary/);
    expect(expectError(await readFileTool.execute({ path: "." }, fakeContext(dirs)))).toMatch(
      /directory.*list_dir/,
    );
    expect(expectError(await readFileTool.execute({ path: "nope.txt" }, fakeContext(dirs)))).toMatch(
      /does not exist/,
    );
  });

  it("reports a permission denial and never reads the file", async () => {
    await writeFile(join(dirs.cwd, "secret.txt"), "top secret");
    const error = expectError(await readFileTool.execute({ path: "secret.txt" }, fakeContext(dirs, "deny")));
    expect(error).toMatch(/Permission denied: read access .* \(test-deny\): denied by the test/);
    expect(error).not.toContain("top secret");
  });

  it("reads the resolvedPath the engine returns, not the raw path", async () => {
    await writeFile(join(dirs.cwd, "real.txt"), "the real one");
    await writeFile(join(dirs.cwd, "decoy.txt"), "the decoy");
    const context = fakeContext(dirs, () => ({
      allowed: true,
      rule: "test",
      resolvedPath: join(dirs.cwd, "real.txt"),
    }));
    expect(expectOk(await readFileTool.execute({ path: "decoy.txt" }, context))).toContain("the real one");
  });

  it("reads through a symlink as the engine resolved it", async () => {
    await writeFile(join(dirs.cwd, "target.txt"), "via link");
    await symlink(join(dirs.cwd, "target.txt"), join(dirs.cwd, "link.txt"));
    expect(expectOk(await readFileTool.execute({ path: "link.txt" }, fakeContext(dirs)))).toContain(
      "via link",
    );
  });

  it("rejects an endLine before startLine in the schema", () => {
    expect(readFileTool.inputSchema.safeParse({ path: "a", startLine: 5, endLine: 2 }).success).toBe(false);
    expect(readFileTool.inputSchema.safeParse({ path: "a", startLine: 0 }).success).toBe(false);
  });

  it("returns a cancellation when the task is aborted", async () => {
    await writeFile(join(dirs.cwd, "n.txt"), numbered(10));
    const context = fakeContext(dirs);
    context.controller.abort();
    expect(expectError(await readFileTool.execute({ path: "n.txt" }, context))).toMatch(/Cancelled/);
  });
});

describe("read_file on a file too large to scan", () => {
  it("reads one page of the range without counting all lines, and says how to continue", async () => {
    const { READ_FULL_SCAN_BYTES } = await import("../../src/tools/read-file.js");
    const line = `${"z".repeat(99)}\n`;
    const count = Math.ceil(READ_FULL_SCAN_BYTES / line.length) + 10;
    await writeFile(join(dirs.cwd, "huge.log"), line.repeat(count));
    const output = expectOk(
      await readFileTool.execute({ path: "huge.log", startLine: 5, endLine: 7 }, fakeContext(dirs)),
    );
    expect(output.split("\n")[0]).toMatch(
      /\(lines 5-7; the file is \d+ bytes, too large to count its lines\)/,
    );
    expect(
      output
        .split("\n")
        .filter((l) => /^\d+\t/.test(l))
        .map((l) => l.split("\t")[0]),
    ).toEqual(["5", "6", "7"]);
    expect(output).toMatch(/Use read_file with startLine=8 to continue/);
  });
});

describe("read_file on special files", () => {
  it("refuses a FIFO (which would block) and a device (which can be endless)", async () => {
    const { execFileSync } = await import("node:child_process");
    const fifo = join(dirs.cwd, "pipe");
    execFileSync("mkfifo", [fifo]);
    expect(expectError(await readFileTool.execute({ path: "pipe" }, fakeContext(dirs)))).toMatch(
      /not a regular file/,
    );
    expect(expectError(await readFileTool.execute({ path: "/dev/zero" }, fakeContext(dirs)))).toMatch(
      /not a regular file/,
    );
  });
});

describe("read_file on a file of any shape", () => {
  it("a 600 MB file that is one line is cut, not built as a string (no RangeError)", async () => {
    const { open } = await import("node:fs/promises");
    const path = join(dirs.cwd, "one-line.txt");
    // Sparse: 8 KB of text (so it is not taken for binary), then 600 MB without a newline.
    const handle = await open(path, "w");
    await handle.write(Buffer.alloc(8192, "a"));
    await handle.truncate(600 * 1024 * 1024);
    await handle.close();
    const output = expectOk(await readFileTool.execute({ path: "one-line.txt" }, fakeContext(dirs)));
    expect(output).toContain("1\taaaa");
    expect(output).toContain("[line cut]");
    expect(output.length).toBeLessThan(10_000);
  });

  it("keeps CRLF and a last line without newline like before", async () => {
    await writeFile(join(dirs.cwd, "crlf.txt"), "one\r\ntwo\r\nthree");
    const output = expectOk(await readFileTool.execute({ path: "crlf.txt" }, fakeContext(dirs)));
    expect(output.split("\n").slice(1)).toEqual(["1\tone", "2\ttwo", "3\tthree"]);
  });
});
