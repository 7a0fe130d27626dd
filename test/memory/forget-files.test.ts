import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FileCalls, nodeFileCalls, scrubFiles } from "../../src/memory/forget-files.js";

const SECRET = "my locker code word is zebraquartz";
const homes: string[] = [];

function home(): string {
  const directory = mkdtempSync(join(tmpdir(), "mercury-forget-files-"));
  homes.push(directory);
  mkdirSync(join(directory, "logs"));
  mkdirSync(join(directory, "baselines", "task-1"), { recursive: true });
  writeFileSync(join(directory, "logs", "mercury.log"), `remembered: ${SECRET}\n`);
  writeFileSync(join(directory, "logs", "mercury.log.1"), `old line: ${SECRET}\n`);
  writeFileSync(join(directory, "baselines", "task-1", "notes.md"), `${SECRET}\n`);
  return directory;
}

const options = { needles: [SECRET], scrubber: undefined, sessionIds: [], skip: [] };

/** The real calls, with `before` run once when the walk reaches `path` in the named step. */
function racing(path: string, step: keyof FileCalls, before: () => void): FileCalls {
  let done = false;
  const at = (here: keyof FileCalls, target: string) => {
    if (!done && here === step && target === path) {
      done = true;
      before();
    }
  };
  return {
    list(directory) {
      at("list", directory);
      return nodeFileCalls.list(directory);
    },
    head(file) {
      at("head", file);
      return nodeFileCalls.head(file);
    },
    read(file) {
      at("read", file);
      return nodeFileCalls.read(file);
    },
    bytes(file) {
      at("bytes", file);
      return nodeFileCalls.bytes(file);
    },
    rewrite(file, text) {
      at("rewrite", file);
      nodeFileCalls.rewrite(file, text);
    },
  };
}

afterEach(() => {
  for (const directory of homes.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("forget's scrub of files under MERCURY_HOME while other processes change them", () => {
  it("a log rotated away between the listing and the read is skipped, not a failure; the rest is scrubbed", () => {
    const directory = home();
    const rotated = join(directory, "logs", "mercury.log.1");
    const result = scrubFiles(
      directory,
      options,
      racing(rotated, "head", () => rmSync(rotated)),
    );
    expect(result.failed).toEqual([]);
    expect(readFileSync(join(directory, "logs", "mercury.log"), "utf8")).not.toContain("zebraquartz");
    expect(readFileSync(join(directory, "baselines", "task-1", "notes.md"), "utf8")).not.toContain(
      "zebraquartz",
    );
  });

  it("a baseline folder pruned between its parent's listing and its own is skipped", () => {
    const directory = home();
    const pruned = join(directory, "baselines", "task-1");
    const result = scrubFiles(
      directory,
      options,
      racing(pruned, "list", () => rmSync(pruned, { recursive: true })),
    );
    expect(result.failed).toEqual([]);
    expect(result.updated.map((path) => path.slice(directory.length))).toEqual(
      expect.arrayContaining([join("/logs", "mercury.log"), join("/logs", "mercury.log.1")]),
    );
  });

  it("a file removed after it was read is not brought back by the rewrite", () => {
    const directory = home();
    const rotated = join(directory, "logs", "mercury.log.1");
    const result = scrubFiles(
      directory,
      options,
      racing(rotated, "rewrite", () => rmSync(rotated)),
    );
    expect(result.failed).toEqual([]);
    expect(existsSync(rotated)).toBe(false);
    expect(result.updated).not.toContain(rotated);
  });

  it("any other error (a file it may not read) is reported with its path, not hidden", () => {
    const directory = home();
    const locked = join(directory, "logs", "mercury.log");
    const refusing: FileCalls = {
      ...nodeFileCalls,
      read(file) {
        if (file === locked)
          throw Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: "EACCES" });
        return nodeFileCalls.read(file);
      },
    };
    const result = scrubFiles(directory, options, refusing);
    expect(result.failed).toEqual([{ path: locked, reason: expect.stringContaining("EACCES") }]);
    expect(readFileSync(join(directory, "logs", "mercury.log.1"), "utf8")).not.toContain("zebraquartz");
  });

  it("a folder it may not list is reported (not taken for a vanished one) and the walk goes on", () => {
    const directory = home();
    const calls: FileCalls = {
      ...nodeFileCalls,
      list(folder) {
        if (folder.endsWith("baselines"))
          throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
        return nodeFileCalls.list(folder);
      },
    };
    const result = scrubFiles(directory, options, calls);
    expect(result.failed).toEqual([
      { path: join(directory, "baselines"), reason: expect.stringContaining("EACCES") },
    ]);
    expect(readFileSync(join(directory, "logs", "mercury.log"), "utf8")).not.toContain("zebraquartz");
  });

  it("the rewrite shortens the file in place (no stale tail after the placeholder)", () => {
    const directory = home();
    const log = join(directory, "logs", "mercury.log");
    scrubFiles(directory, options, nodeFileCalls);
    expect(readFileSync(log, "utf8")).toBe("remembered: [forgotten]\n");
  });
});

describe("files forget cannot rewrite", () => {
  it("a database copy and a gzip archive that hold the text are named, left byte for byte; others are not named", async () => {
    const { gzipSync } = await import("node:zlib");
    const directory = home();
    const copy = join(directory, "my-copy.sqlite");
    const copyBytes = Buffer.concat([
      Buffer.from("SQLite format 3\0"),
      Buffer.alloc(64),
      Buffer.from(SECRET),
    ]);
    writeFileSync(copy, copyBytes);
    const archive = join(directory, "logs", "mercury.log.2.gz");
    const archiveBytes = gzipSync(`older line: ${SECRET}\n`);
    writeFileSync(archive, archiveBytes);
    const unrelated = join(directory, "logs", "mercury.log.3.gz");
    writeFileSync(unrelated, gzipSync("nothing to see\n"));
    const image = join(directory, "photo.db");
    writeFileSync(image, Buffer.concat([Buffer.alloc(8), Buffer.from("a cat picture")]));
    const result = scrubFiles(directory, options, nodeFileCalls);
    expect(result.copiesHolding.sort()).toEqual([archive, copy].sort());
    expect(readFileSync(copy)).toEqual(copyBytes);
    expect(readFileSync(archive)).toEqual(archiveBytes);
    expect(result.failed).toEqual([]);
    // The text files are still rewritten as before.
    expect(readFileSync(join(directory, "logs", "mercury.log"), "utf8")).not.toContain("zebraquartz");
  });
});
