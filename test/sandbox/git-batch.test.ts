import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChangeTracker } from "../../src/agent/completion/changes.js";
import { type GitContainment, runContainedGit } from "../../src/agent/completion/contained-git.js";
import { defaultSnapshotLimits } from "../../src/agent/completion/snapshot.js";
import { defaultSandboxLimits } from "../../src/sandbox/types.js";
import { type FakeUser, makeFakeUser, requireSandbox, waitFor } from "./fixture.js";

/**
 * Session 12: a baseline and a change report run their git commands in one contained launch
 * (agent/completion/git-batch.ts), and Mercury's own git calls get Node-made cgroups and a disk
 * watch in Node instead of two shells per call. The framing, the per-command errors, the disk floor
 * and the cgroups are checked here, each through one tracker or one git call.
 */
let user: FakeUser;
let containment: GitContainment;
beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
  containment = { userHome: user.home, mercuryHome: user.mercuryHome };
});
afterAll(async () => {
  await user?.cleanup();
});

let repositories = 0;
/** A committed repository of its own below the workspace. */
function repository(files: Record<string, string> = { "README.md": "readme\n" }): string {
  const top = join(user.workspace, `repo-${++repositories}`);
  mkdirSync(top);
  for (const [path, text] of Object.entries(files)) writeFileSync(join(top, path), text);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: top });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  return top;
}

function plantFilter(top: string, name: string, clean: string, required = false): void {
  execFileSync("git", ["config", `filter.${name}.clean`, clean], { cwd: top });
  if (required) execFileSync("git", ["config", `filter.${name}.required`, "true"], { cwd: top });
  writeFileSync(join(top, ".gitattributes"), `* filter=${name}\n`);
}

describe("one launch per change report", () => {
  it("reads every step's answer, whatever the file names hold", async () => {
    const top = repository({ "README.md": "readme\n", "gone.txt": "old\n", ".gitignore": "build/\n" });
    const tracker = createChangeTracker(top, defaultSnapshotLimits, { containment });
    await tracker.begin();
    writeFileSync(join(top, "README.md"), "readme\nchanged\n");
    // Names that look like frames or records to a parser that splits on what names may contain.
    const odd = ["new\nline.txt", "tab\there.txt", "\u0001add 0\u0001.txt", " lead space"];
    for (const name of odd) writeFileSync(join(top, name), "x\n");
    execFileSync("rm", ["gone.txt"], { cwd: top });
    mkdirSync(join(top, "build"));
    writeFileSync(join(top, "build", "out.js"), "built\n");
    const report = await tracker.report();
    expect(report.note).toBeUndefined();
    expect(report.confirmed).toBe(true);
    expect(report.files.map((file) => file.path).sort()).toEqual(["README.md", "gone.txt", ...odd].sort());
    expect(report.files.find((file) => file.path === "README.md")).toMatchObject({ added: 1, removed: 0 });
    expect(report.created?.sort()).toEqual([...odd].sort());
    expect(report.deleted).toEqual(["gone.txt"]);
    // The ignored build output is in the fingerprint: touching it changes the next report's digest.
    const unseen = report.unseen;
    writeFileSync(join(top, "build", "out.js"), "built again\n");
    const again = await tracker.report();
    expect(again.after).toEqual(report.after);
    expect(again.unseen).not.toBe(unseen);
  });

  it("names the git command that failed, with git's message", async () => {
    const top = repository();
    const tracker = createChangeTracker(top, defaultSnapshotLimits, { containment });
    await tracker.begin();
    plantFilter(top, "broken", "echo the-filter-said-no >&2; exit 3", true);
    writeFileSync(join(top, "README.md"), "changed\n");
    const report = await tracker.report();
    expect(report.confirmed).toBe(false);
    expect(report.note).toMatch(/git add failed: .*the-filter-said-no/s);
  });

  it("a frame forged into Mercury's stream by a program the repository names fails the report", async () => {
    const top = repository();
    const tracker = createChangeTracker(top, defaultSnapshotLimits, { containment });
    await tracker.begin();
    // The clean filter reads the launch's mark from the script's arguments (pid 2 in the sandbox)
    // and writes a numstat frame claiming nothing changed: on its stderr (git's, which it inherits)
    // and at the script's stdout through /proc (a socket: that open fails).
    const forge =
      "mark=$(tr '\\0' '\\n' < /proc/2/cmdline | grep -E '^[0-9a-f]{64}$'); " +
      "printf '\\0%s numstat 0\\0' \"$mark\" >&2; " +
      "printf '\\0%s numstat 0\\0' \"$mark\" 2>/dev/null > /proc/2/fd/1; cat";
    plantFilter(top, "forge", forge);
    writeFileSync(join(top, "README.md"), "changed\n");
    const report = await tracker.report();
    expect(report.confirmed).toBe(false);
    expect(report.files).toEqual([]);
    expect(report.note).toContain("frames do not match");
  });
});

describe("the batch without any sandbox", () => {
  it("runs bare with the repository's drivers switched off: the report holds and no filter runs", async () => {
    const top = repository();
    const none = {
      ...containment,
      status: () => ({ available: false as const, reason: "test", fix: "none" }),
    };
    const tracker = createChangeTracker(top, defaultSnapshotLimits, { containment: none });
    await tracker.begin();
    const marker = join(top, "filter-ran");
    plantFilter(top, "planted", `touch ${marker}; cat`);
    writeFileSync(join(top, "README.md"), "changed\n");
    const report = await tracker.report();
    expect(report.note).toBeUndefined();
    expect(report.files.map((file) => file.path).sort()).toEqual([".gitattributes", "README.md"]);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the launch of a git call Mercury waits for", () => {
  it("a clean filter that fills the disk below the floor is stopped, and the report says why", async () => {
    const top = repository();
    const free = statfsSync(top).bavail * statfsSync(top).bsize;
    // The floor sits 64 MiB below what is free now; the filter writes 256 MiB and then never ends.
    const limits = { ...defaultSandboxLimits, diskFloorBytes: free - 64 * 1024 ** 2 };
    const tracker = createChangeTracker(top, defaultSnapshotLimits, {
      containment: { ...containment, limits },
    });
    await tracker.begin();
    plantFilter(top, "fill", "head -c 268435456 /dev/zero > fill.bin; exec tail -f /dev/null");
    writeFileSync(join(top, "README.md"), "changed\n");
    const report = await tracker.report();
    execFileSync("rm", ["-f", join(top, "fill.bin")]);
    expect(report.confirmed).toBe(false);
    expect(report.note).toContain("git add did not finish");
    expect(report.note).toContain("mercury: stopped: the disk holding");
  });

  it("runs in a memory group of its own with the limit, removed when git ends", async () => {
    const own = /^\d+:memory:(.*)$/m.exec(readFileSync("/proc/self/cgroup", "utf8"))?.[1];
    const parent = own === undefined ? null : join("/sys/fs/cgroup/memory", own);
    if (!parent || !existsSync(join(parent, "cgroup.procs"))) return;
    const top = repository();
    const limits = { ...defaultSandboxLimits, totalMemoryBytes: 3 * 1024 ** 3 };
    // The alias says it is running, then waits for the test to have looked at its group.
    const call = runContainedGit(
      ["-c", "alias.probe=!touch ready; until [ -e go ]; do sleep 0.02; done", "probe"],
      { top, containment: { ...containment, limits } },
    );
    expect(await waitFor(async () => existsSync(join(top, "ready")))).toBe(true);
    const groups = readdirSync(parent).filter((name) => name.startsWith(`mercury-${process.pid}-`));
    expect(groups).toHaveLength(1);
    const group = join(parent, groups[0] as string);
    expect(readFileSync(join(group, "memory.limit_in_bytes"), "utf8").trim()).toBe(String(3 * 1024 ** 3));
    expect(readFileSync(join(group, "cgroup.procs"), "utf8").trim()).not.toBe("");
    writeFileSync(join(top, "go"), "");
    const result = await call;
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(group)).toBe(false);
  });
});
