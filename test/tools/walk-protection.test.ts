import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { walkSkipReason } from "../../src/tools/authorize-path.js";
import { listDirTool } from "../../src/tools/list-dir.js";
import { searchFilesTool } from "../../src/tools/search-files.js";
import { expectOk, fakeContext, type TempDirs, tempDirs } from "./helpers.js";

/**
 * The engine approves the root of a walk; what lies inside is filtered by the same secrets list, so
 * `search_files ~ "BEGIN RSA"` cannot read keys the engine would never let read_file open.
 */
let dirs: TempDirs;
let savedHome: string | undefined;
beforeEach(async () => {
  dirs = await tempDirs();
  savedHome = process.env.HOME;
  // os.homedir() follows $HOME: the user's home becomes the temp root for this test.
  process.env.HOME = dirs.root;
  await mkdir(join(dirs.root, ".ssh"));
  await writeFile(join(dirs.root, ".ssh/config"), "Host x SECRET");
  await mkdir(join(dirs.root, ".aws"));
  await writeFile(join(dirs.root, ".aws/credentials"), "aws_secret SECRET");
  await writeFile(join(dirs.home, ".env"), "MERCURY_API_KEY=SECRET");
  await writeFile(join(dirs.cwd, ".env"), "DB_PASSWORD=SECRET");
  await writeFile(join(dirs.cwd, ".env.example"), "DB_PASSWORD=SECRET-example");
  await writeFile(join(dirs.cwd, "server.pem"), "SECRET key");
  await writeFile(join(dirs.cwd, "id_ed25519"), "SECRET key");
  await writeFile(join(dirs.cwd, "notes.md"), "not a SECRET really");
});
afterEach(async () => {
  process.env.HOME = savedHome;
  await dirs.cleanup();
});

describe("walks skip protected paths", () => {
  it("search_files never reads keys, credentials or .env files under an approved root", async () => {
    const context = fakeContext(dirs);
    const output = expectOk(
      await searchFilesTool.execute({ path: dirs.root, pattern: "SECRET", includeHidden: true }, context),
    );
    const matches = output.split("\n").filter((line) => /:\d+: /.test(line));
    expect(matches.sort()).toEqual([
      "work/.env.example:1: DB_PASSWORD=SECRET-example",
      "work/notes.md:1: not a SECRET really",
    ]);
    expect(output).toMatch(/6 protected paths were not searched/);
    expect(output).not.toContain("aws_secret");
    expect(output).not.toContain("MERCURY_API_KEY");
    // Only the root went to the engine; the filter spared it thousands of questions.
    expect(context.requests).toEqual([{ kind: "path", path: dirs.root, access: "read" }]);
  });

  it("search_files by name lists no entries of protected folders", async () => {
    const output = expectOk(
      await searchFilesTool.execute({ path: dirs.root, glob: "*", includeHidden: true }, fakeContext(dirs)),
    );
    expect(output).not.toContain(".ssh/config");
    expect(output).not.toContain(".aws/credentials");
    expect(output).toContain("work/notes.md");
  });

  it("list_dir shows a protected folder but not what is inside", async () => {
    const output = expectOk(
      await listDirTool.execute({ path: dirs.root, depth: 2, includeHidden: true }, fakeContext(dirs)),
    );
    expect(output).toContain(".ssh/ (not listed: SSH keys and config)");
    expect(output).toContain(".aws/ (not listed: AWS credentials)");
    expect(output).not.toContain("credentials  ");
    expect(output).toContain("work/notes.md");
  });

  it("walkSkipReason names what it protects", () => {
    expect(walkSkipReason(join(dirs.root, ".ssh"), dirs.home)).toBe("SSH keys and config");
    expect(walkSkipReason(join(dirs.home, ".env"), dirs.home)).toBe("Mercury's secrets file");
    expect(walkSkipReason(join(dirs.cwd, ".env.local"), dirs.home)).toMatch(/environment file/);
    expect(walkSkipReason(join(dirs.cwd, "notes.md"), dirs.home)).toBeNull();
  });
});
