import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitFolderRefusal } from "../../src/sandbox/git-folders.js";

/** The layouts git itself writes, built by hand (no git runs here). */
const root = mkdtempSync("/var/tmp/mercury-git-folders-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

function folder(...parts: string[]): string {
  const path = join(root, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
}

describe("which git folders Mercury's git may write", () => {
  it("the project's own .git, and nothing outside it that the project merely names", () => {
    const top = folder("plain");
    const gitDir = folder("plain", ".git");
    expect(gitFolderRefusal(top, [gitDir, gitDir])).toBeNull();
    const elsewhere = folder("someone-else", ".git");
    expect(gitFolderRefusal(top, [elsewhere, elsewhere])).toMatch(/not a linked worktree/);
    expect(gitFolderRefusal(top, [gitDir, elsewhere])).toMatch(/names .*someone-else/);
  });

  it("a linked worktree only when its git folder points back at the worktree", () => {
    const common = folder("main", ".git");
    const gitDir = folder("main", ".git", "worktrees", "feature");
    const top = folder("feature");
    writeFileSync(join(top, ".git"), `gitdir: ${gitDir}\n`);
    writeFileSync(join(gitDir, "commondir"), "../..\n");
    writeFileSync(join(gitDir, "gitdir"), `${join(top, ".git")}\n`);
    expect(gitFolderRefusal(top, [gitDir, common])).toBeNull();
    // Another folder claiming the same git folder (the agent's .git file): its back link names `feature`.
    const impostor = folder("impostor");
    writeFileSync(join(impostor, ".git"), `gitdir: ${gitDir}\n`);
    expect(gitFolderRefusal(impostor, [gitDir, common])).toMatch(/not a linked worktree/);
  });

  it("a submodule only when its config's core.worktree names the submodule's folder", () => {
    const gitDir = folder("super", ".git", "modules", "library");
    const top = folder("super", "library");
    writeFileSync(join(top, ".git"), "gitdir: ../.git/modules/library\n");
    writeFileSync(join(gitDir, "config"), "[core]\n\tworktree = ../../../library\n");
    expect(gitFolderRefusal(top, [gitDir, gitDir])).toBeNull();
    const impostor = folder("elsewhere", "project");
    writeFileSync(join(impostor, ".git"), `gitdir: ${gitDir}\n`);
    expect(gitFolderRefusal(impostor, [gitDir, gitDir])).toMatch(/not a linked worktree/);
  });
});
