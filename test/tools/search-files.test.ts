import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  catastrophicRisk,
  globToRegExp,
  SEARCH_MAX_FILE_BYTES,
  searchFilesTool,
} from "../../src/tools/search-files.js";
import { expectError, expectOk, fakeContext, type TempDirs, tempDirs } from "./helpers.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
  await mkdir(join(dirs.cwd, "src/deep"), { recursive: true });
  await mkdir(join(dirs.cwd, "node_modules/dep"), { recursive: true });
  await mkdir(join(dirs.cwd, ".git"), { recursive: true });
  await writeFile(join(dirs.cwd, "src/a.ts"), "const TODO = 1;\nexport const b = 2;\n");
  await writeFile(join(dirs.cwd, "src/deep/c.ts"), "// todo: fix\n");
  await writeFile(join(dirs.cwd, "src/d.js"), "todo in js\n");
  await writeFile(join(dirs.cwd, "node_modules/dep/e.ts"), "TODO hidden in deps\n");
  await writeFile(join(dirs.cwd, ".git/config"), "todo in git\n");
  await writeFile(join(dirs.cwd, "bin.dat"), Buffer.from("todo\u0000binary"));
});
afterEach(async () => {
  await chmod(join(dirs.cwd, "src"), 0o755);
  await dirs.cleanup();
});

const lines = (output: string) => output.split("\n").slice(1);

describe("search_files", () => {
  it("finds files by name glob, skipping node_modules and .git", async () => {
    const output = expectOk(await searchFilesTool.execute({ glob: "*.ts" }, fakeContext(dirs)));
    expect(lines(output).sort()).toEqual(["src/a.ts", "src/deep/c.ts"]);
    expect(output).toMatch(/^2 matching files under /);
  });

  it("matches globs with a slash against the relative path", async () => {
    const output = expectOk(await searchFilesTool.execute({ glob: "src/**/*.{ts,js}" }, fakeContext(dirs)));
    expect(lines(output).sort()).toEqual(["src/a.ts", "src/d.js", "src/deep/c.ts"]);
    const top = expectOk(await searchFilesTool.execute({ glob: "src/*.ts" }, fakeContext(dirs)));
    expect(lines(top)).toEqual(["src/a.ts"]);
  });

  it("searches contents case-insensitively by default with path:line output, skipping binaries", async () => {
    const output = expectOk(await searchFilesTool.execute({ pattern: "todo" }, fakeContext(dirs)));
    expect(lines(output).sort()).toEqual([
      "src/a.ts:1: const TODO = 1;",
      "src/d.js:1: todo in js",
      "src/deep/c.ts:1: // todo: fix",
    ]);
  });

  it("combines glob and content, honours caseSensitive and includeIgnored", async () => {
    const exact = expectOk(
      await searchFilesTool.execute(
        { pattern: "TODO", caseSensitive: true, glob: "*.ts", includeIgnored: true },
        fakeContext(dirs),
      ),
    );
    expect(lines(exact).sort()).toEqual([
      "node_modules/dep/e.ts:1: TODO hidden in deps",
      "src/a.ts:1: const TODO = 1;",
    ]);
  });

  it("treats literal patterns as text and reports an invalid regex with the fix", async () => {
    await writeFile(join(dirs.cwd, "src/re.txt"), "a (b) [c\n");
    const literal = expectOk(
      await searchFilesTool.execute({ pattern: "(b) [c", literal: true }, fakeContext(dirs)),
    );
    expect(lines(literal)).toEqual(["src/re.txt:1: a (b) [c"]);
    const error = expectError(await searchFilesTool.execute({ pattern: "(b) [c" }, fakeContext(dirs)));
    expect(error).toMatch(/Invalid regular expression .*Set literal to true/);
  });

  it("caps results and says more may exist", async () => {
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => writeFile(join(dirs.cwd, `f${i}.txt`), "hit\nhit\n")),
    );
    const output = expectOk(
      await searchFilesTool.execute({ pattern: "hit", maxResults: 7 }, fakeContext(dirs)),
    );
    expect(lines(output).filter((l) => l.includes(": hit"))).toHaveLength(7);
    expect(output).toMatch(/Stopped after 7 matching lines; more may exist/);
  });

  it("skips files over the size limit and says so", async () => {
    await writeFile(join(dirs.cwd, "huge.txt"), `needle\n${"x".repeat(SEARCH_MAX_FILE_BYTES)}`);
    const output = expectOk(await searchFilesTool.execute({ pattern: "needle" }, fakeContext(dirs)));
    expect(output).toMatch(/^0 matching lines/);
    expect(output).toMatch(/1 files over .* bytes were not searched/);
  });

  // Root reads everything, so the permission bits cannot make a directory unreadable there.
  it.skipIf(process.getuid?.() === 0)("reports unreadable subdirectories instead of failing", async () => {
    await chmod(join(dirs.cwd, "src"), 0o000);
    const output = expectOk(await searchFilesTool.execute({ glob: "*" }, fakeContext(dirs)));
    expect(output).toMatch(/1 paths could not be read: src/);
  });

  it("requires a glob or a pattern, rejects bad globs, and honours denial", async () => {
    expect(searchFilesTool.inputSchema.safeParse({}).success).toBe(false);
    expect(expectError(await searchFilesTool.execute({ glob: "[abc" }, fakeContext(dirs)))).toMatch(
      /without a closing/,
    );
    expect(expectError(await searchFilesTool.execute({ glob: "*" }, fakeContext(dirs, "deny")))).toMatch(
      /Permission denied/,
    );
  });

  it("translates globs", () => {
    expect(globToRegExp("*.ts", false).test("a.ts")).toBe(true);
    expect(globToRegExp("*.ts", false).test("a/b.ts")).toBe(false);
    expect(globToRegExp("**/*.ts", false).test("a/b/c.ts")).toBe(true);
    expect(globToRegExp("**/*.ts", false).test("c.ts")).toBe(true);
    expect(globToRegExp("file?.[jt]s", false).test("file1.js")).toBe(true);
    expect(globToRegExp("[!a]*", false).test("abc")).toBe(false);
    expect(globToRegExp("a+b(c).md", false).test("a+b(c).md")).toBe(true);
    expect(globToRegExp("*.MD", true).test("x.md")).toBe(true);
  });
});

describe("search_files and list_dir when the task is aborted", () => {
  it("return a cancellation instead of partial results", async () => {
    const context = fakeContext(dirs);
    context.controller.abort();
    expect(expectError(await searchFilesTool.execute({ pattern: "todo" }, context))).toMatch(/^Cancelled/);
    const { listDirTool } = await import("../../src/tools/list-dir.js");
    expect(expectError(await listDirTool.execute({ depth: 3 }, context))).toMatch(/^Cancelled/);
  });
});

describe("catastrophicRisk", () => {
  it.each([
    "(a+)+$",
    "(a*)*b",
    "(x+x+)+y",
    "((ab)*)+",
    "(\\w+\\s?)*$",
    "(a|b+){2,}",
    "(a)\\1",
    "(?<x>a)\\k<x>",
  ])("refuses %s", (pattern) => {
    expect(catastrophicRisk(pattern)).not.toBeNull();
  });

  it.each(["TODO", "fo+bar", "(foo|bar)+", "[(a+)+]", "\\(a+\\)+", "function \\w+\\(", "a{2,3}b", "(ab)c*"])(
    "allows %s",
    (pattern) => {
      expect(catastrophicRisk(pattern)).toBeNull();
    },
  );

  it("search_files refuses a catastrophic pattern with advice", async () => {
    const error = expectError(await searchFilesTool.execute({ pattern: "(a+)+$" }, fakeContext(dirs)));
    expect(error).toMatch(/repeats a group that itself repeats, which can take exponential time.*literal/);
  });
});

describe("search_files with a pattern that backtracks badly", () => {
  it("stops at the per-file time limit with advice, and the event loop keeps turning", async () => {
    const { createSearchFilesTool } = await import("../../src/tools/search-files.js");
    await writeFile(join(dirs.cwd, "long.txt"), `${"a".repeat(5000)}\n`);
    const tool = createSearchFilesTool({ perFileTimeoutMs: 300 });
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    let error: string;
    try {
      // Polynomial, not nested: the shape check lets it through; the worker's time limit stops it.
      error = expectError(await tool.execute({ pattern: ".*.*.*.*x", glob: "long.txt" }, fakeContext(dirs)));
    } finally {
      clearInterval(timer);
    }
    expect(error).toMatch(/took more than 300 ms on long\.txt; it backtracks too much/);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(longestGap).toBeLessThan(200);
  });
});
