import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { cloneSkillRepository, readRepositoryFiles } from "../../src/skills/git-clone.js";

/**
 * Session 12: a skill's git repository is hostile input. Repositories are built locally with git
 * (no network); the clone runs over file:// only where the test says so (real installs: https).
 */

const gitEnv = (home: string) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
});

function repository(
  files: Record<string, string | Buffer>,
  prepare?: (folder: string) => void,
  afterAdd?: (git: (...args: string[]) => void) => void,
): string {
  const folder = mkdtempSync(join(tmpdir(), "mercury-skill-repo-"));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: folder,
      env: gitEnv(folder),
      stdio: ["ignore", "pipe", "pipe"],
    });
  git("init", "-q", "-b", "main");
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), content);
  }
  prepare?.(folder);
  git("add", "-A");
  afterAdd?.(git);
  git("commit", "-q", "-m", "skill");
  return folder;
}

const options = () => ({ signal: new AbortController().signal });
const manifest = "---\nname: weather\ndescription: Weather.\n---\n\nDo it.\n";

describe("skills install from git (session 12)", () => {
  it("reads only regular files from git's objects; hostile names are data; .git is skipped", async () => {
    const folder = repository({
      "SKILL.md": manifest,
      "-rf --help": "leading dash",
      "line\nbreak.txt": "newline in the name",
      "scripts/run.sh": "#!/bin/sh\necho hi\n",
    });
    const files = await readRepositoryFiles(join(folder, ".git"), options());
    const byPath = Object.fromEntries(files.map((file) => [file.path, file.data.toString()]));
    expect(byPath).toEqual({
      "SKILL.md": manifest,
      "-rf --help": "leading dash",
      "line\nbreak.txt": "newline in the name",
      "scripts/run.sh": "#!/bin/sh\necho hi\n",
    });
  });

  it("refuses a symbolic link (it would point out of the skill folder) and a submodule", async () => {
    const linked = repository({ "SKILL.md": manifest }, (folder) =>
      symlinkSync("/etc/passwd", join(folder, "notes.md")),
    );
    await expect(readRepositoryFiles(join(linked, ".git"), options())).rejects.toThrow(
      /notes\.md is a symbolic link/,
    );
    const withSubmodule = repository({ "SKILL.md": manifest }, undefined, (git) =>
      git("update-index", "--add", "--cacheinfo", `160000,${"a".repeat(40)},vendor/evil`),
    );
    await expect(readRepositoryFiles(join(withSubmodule, ".git"), options())).rejects.toThrow(
      /vendor\/evil is a submodule/,
    );
  });

  it("refuses a tree that unpacks past the limit before reading a byte of it (a compression bomb)", async () => {
    // 2 MiB of zeros against a 1 MiB limit (real installs: 20 MiB): a few KiB in git, refused by the
    // listed size, before cat-file inflates any of it.
    const bomb = repository({ "SKILL.md": manifest, "zeros.bin": Buffer.alloc(2 * 1024 * 1024) });
    await expect(
      readRepositoryFiles(join(bomb, ".git"), { ...options(), maxUnpackedBytes: 1024 * 1024 }),
    ).rejects.toThrow(/more than 1048576 bytes/);
  });

  it("stops a clone whose pack outgrows the limit (the disk is never filled) and refuses ext:: transports", async () => {
    const big = repository({ "SKILL.md": manifest, "noise.bin": randomBytes(512 * 1024) });
    await expect(
      cloneSkillRepository(`file://${big}`, { ...options(), protocols: ["file"], maxPackBytes: 64 * 1024 }),
    ).rejects.toThrow(/larger than/);
    // The same repository under the limit clones and reads.
    const files = await cloneSkillRepository(`file://${big}`, { ...options(), protocols: ["file"] });
    expect(files.map((file) => file.path).sort()).toEqual(["SKILL.md", "noise.bin"]);

    const marker = join(mkdtempSync(join(tmpdir(), "mercury-ext-")), "ran");
    await expect(
      cloneSkillRepository(`ext::sh -c touch% ${marker}`, { ...options(), protocols: ["file"] }),
    ).rejects.toThrow(/git fetch failed/);
    expect(existsSync(marker)).toBe(false);
  });
});
