import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runContainedGit } from "../../src/agent/completion/contained-git.js";
import type { TaskEvidence } from "../../src/agent/evidence.js";
import { applyUndo, planUndo } from "../../src/agent/undo.js";
import { hostGitEnvironment, neutralizedDrivers } from "../../src/sandbox/host-git.js";

/**
 * Red-team pass 11: git that Mercury runs on the host in a repository the agent wrote. Every planted
 * program (clean/smudge/process filters, textconv, diff command, fsmonitor, hooks, a promisor
 * remote's upload-pack) would touch a marker file outside the repository; after Mercury's
 * operation no marker may exist. Each case failed on the code before this pass.
 */
const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The test's own git, with a config that names nothing of the repository's. */
function setupGit(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
    cwd,
    encoding: "utf8",
    env: hostGitEnvironment(),
  });
}

interface Planted {
  workspace: string;
  markers: string;
  tree: (name: string) => string;
}

/** A repository with two commits' worth of trees, then the agent's plants (written last). */
function repositoryWithPlants(): Planted & { baselineTree: string; afterTree: string } {
  const root = mkdtempSync(join(tmpdir(), "mercury-s11-git-"));
  made.push(root);
  const workspace = join(root, "workspace");
  const markers = join(root, "markers");
  mkdirSync(workspace);
  mkdirSync(markers);
  setupGit(workspace, "init", "-q");
  writeFileSync(join(workspace, "notes.txt"), "original\n");
  setupGit(workspace, "add", "-A");
  const baselineTree = setupGit(workspace, "write-tree").trim();
  writeFileSync(join(workspace, "notes.txt"), "changed by the task\n");
  writeFileSync(join(workspace, "new.txt"), "new\n");
  setupGit(workspace, "add", "-A");
  const afterTree = setupGit(workspace, "write-tree").trim();
  plant(workspace, markers);
  return { workspace, markers, baselineTree, afterTree, tree: (name) => name };
}

function plant(workspace: string, markers: string): void {
  const touch = (name: string) => `touch ${join(markers, name)}`;
  const hook = join(workspace, "planted-hook.sh");
  writeFileSync(hook, `#!/bin/sh\n${touch("fsmonitor")}\nexit 1\n`);
  chmodSync(hook, 0o755);
  mkdirSync(join(workspace, ".git", "hooks"), { recursive: true });
  const indexHook = join(workspace, ".git", "hooks", "post-index-change");
  writeFileSync(indexHook, `#!/bin/sh\n${touch("hook")}\n`);
  chmodSync(indexHook, 0o755);
  writeFileSync(join(workspace, ".gitattributes"), "* filter=evil diff=evil\n*.txt filter=a=b\n");
  mkdirSync(join(workspace, ".git", "info"), { recursive: true });
  writeFileSync(join(workspace, ".git", "info", "attributes"), "notes.txt filter=info\n");
  const config = readFileSync(join(workspace, ".git", "config"), "utf8");
  writeFileSync(
    join(workspace, ".git", "config"),
    `${config}[core]\n\tfsmonitor = ${hook}\n` +
      `[filter "evil"]\n\tclean = "${touch("clean")}; cat"\n\tsmudge = "${touch("smudge")}; cat"\n\trequired = true\n` +
      `[filter "a=b"]\n\tclean = "${touch("clean-equals")}; cat"\n` +
      `[filter "info"]\n\tprocess = "${touch("process")}"\n` +
      `[diff "evil"]\n\ttextconv = "${touch("textconv")}; cat"\n\tcommand = "${touch("diff-command")}"\n`,
  );
}

function markersOf(markers: string): string[] {
  return execFileSync("ls", ["-A", markers], { encoding: "utf8" }).split("\n").filter(Boolean);
}

function gitEvidence(workspace: string, baselineTree: string, afterTree: string): TaskEvidence {
  return {
    cwd: workspace,
    baseline: { kind: "git", top: workspace, gitDir: join(workspace, ".git"), tree: baselineTree },
    verifications: [],
    lastChangeSequence: 1,
    after: { root: workspace, files: ["new.txt", "notes.txt"], tree: afterTree },
  } as unknown as TaskEvidence;
}

describe("mercury undo runs none of the repository's programs (session 11)", () => {
  it("plans, diffs and restores without a planted clean filter, textconv, fsmonitor or hook running", () => {
    const repo = repositoryWithPlants();
    const evidence = gitEvidence(repo.workspace, repo.baselineTree, repo.afterTree);
    const plan = planUndo(evidence);
    expect(plan.changedSince).toEqual([]);
    expect(plan.files).toEqual([
      { path: "new.txt", action: "delete" },
      { path: "notes.txt", action: "restore" },
    ]);
    expect(plan.diff).toContain("-original");
    expect(plan.diff).toContain("+changed by the task");
    applyUndo(evidence, plan);
    expect(readFileSync(join(repo.workspace, "notes.txt"), "utf8")).toBe("original\n");
    expect(existsSync(join(repo.workspace, "new.txt"))).toBe(false);
    expect(markersOf(repo.markers)).toEqual([]);
  });

  it("a file changed after the task still counts as changed (the hash is the file's own)", () => {
    const repo = repositoryWithPlants();
    writeFileSync(join(repo.workspace, "notes.txt"), "someone else's edit\n");
    const plan = planUndo(gitEvidence(repo.workspace, repo.baselineTree, repo.afterTree));
    expect(plan.changedSince).toEqual(["notes.txt"]);
    expect(markersOf(repo.markers)).toEqual([]);
  });
});

describe("undo does not write through a link a later task planted (session 11)", () => {
  it("a folder turned into a link to a place outside, holding the same content, counts as changed", () => {
    const root = mkdtempSync(join(tmpdir(), "mercury-s11-link-"));
    made.push(root);
    const workspace = join(root, "workspace");
    const outside = join(root, "home");
    mkdirSync(join(workspace, "sub"), { recursive: true });
    mkdirSync(outside);
    setupGit(workspace, "init", "-q");
    writeFileSync(join(workspace, "sub", ".profile"), "attacker's before\n");
    setupGit(workspace, "add", "-A");
    const baselineTree = setupGit(workspace, "write-tree").trim();
    // Task 1 leaves the user's real profile text there; task 2 swaps sub/ for a link to the home.
    writeFileSync(join(workspace, "sub", ".profile"), "the user's profile\n");
    setupGit(workspace, "add", "-A");
    const afterTree = setupGit(workspace, "write-tree").trim();
    writeFileSync(join(outside, ".profile"), "the user's profile\n");
    renameSync(join(workspace, "sub"), join(root, "sub-moved"));
    symlinkSync(outside, join(workspace, "sub"));
    const evidence = {
      ...gitEvidence(workspace, baselineTree, afterTree),
      after: { root: workspace, files: ["sub/.profile"], tree: afterTree },
    } as unknown as TaskEvidence;
    const plan = planUndo(evidence);
    expect(plan.changedSince).toEqual(["sub/.profile"]);
    expect(() => applyUndo(evidence, plan)).toThrow(/symbolic link now/);
    expect(readFileSync(join(outside, ".profile"), "utf8")).toBe("the user's profile\n");
  });
});

describe("the change tracker's git without any sandbox runs none of them (session 11)", () => {
  const none = {
    userHome: "/nonexistent-home",
    mercuryHome: "/nonexistent-mercury",
    status: () => ({ available: false as const, reason: "test", fix: "none" }),
  };

  it("git add, write-tree, diff and ls-files with planted drivers leave no marker", async () => {
    const repo = repositoryWithPlants();
    const scratch = mkdtempSync(join(tmpdir(), "mercury-s11-index-"));
    made.push(scratch);
    const env = { GIT_INDEX_FILE: join(scratch, "index") };
    const options = { top: repo.workspace, containment: none, env };
    const add = await runContainedGit(["add", "-A", "--", "."], options);
    expect(add.stderr).toBe("");
    expect(add.code).toBe(0);
    const tree = await runContainedGit(["write-tree"], options);
    expect(tree.code).toBe(0);
    const diff = await runContainedGit(
      ["diff", "--no-color", repo.baselineTree, tree.stdout.trim()],
      options,
    );
    expect(diff.stderr + diff.stdout).toContain("+changed by the task");
    const listed = await runContainedGit(
      ["ls-files", "-z", "--others", "--ignored", "--exclude-standard"],
      options,
    );
    expect(listed.code).toBe(0);
    const status = await runContainedGit(["status", "--porcelain"], {
      top: repo.workspace,
      containment: none,
    });
    expect(status.code).toBe(0);
    expect(markersOf(repo.markers)).toEqual([]);
  });

  it("a missing object in a planted partial clone fetches nothing (no upload-pack runs)", async () => {
    const repo = repositoryWithPlants();
    const config = readFileSync(join(repo.workspace, ".git", "config"), "utf8").replace(
      "repositoryformatversion = 0",
      "repositoryformatversion = 1",
    );
    writeFileSync(
      join(repo.workspace, ".git", "config"),
      `${config}[extensions]\n\tpartialClone = origin\n[remote "origin"]\n\turl = ${repo.workspace}\n` +
        `\tpromisor = true\n\tuploadpack = "touch ${join(repo.markers, "upload-pack")}; git-upload-pack"\n`,
    );
    const missing = "0123456789abcdef0123456789abcdef01234567";
    const shown = await runContainedGit(["cat-file", "-t", missing], {
      top: repo.workspace,
      containment: none,
    });
    expect(shown.code).not.toBe(0);
    expect(markersOf(repo.markers)).toEqual([]);
  });
});

describe("neutralizedDrivers", () => {
  it("switches off each driver once, names with dots and = kept whole", () => {
    const names =
      "filter.a=b.clean\0filter.a=b.smudge\0diff.x.y.textconv\0merge.m.driver\0filter.lfs.required\0";
    expect(neutralizedDrivers(names)).toEqual([
      ["filter.a=b.clean", ""],
      ["filter.a=b.smudge", ""],
      ["filter.a=b.process", ""],
      ["filter.a=b.required", "false"],
      ["diff.x.y.textconv", ""],
      ["merge.m.driver", ""],
    ]);
  });
});
