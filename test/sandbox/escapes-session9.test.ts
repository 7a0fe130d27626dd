import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChangeTracker } from "../../src/agent/completion/changes.js";
import type { GitContainment } from "../../src/agent/completion/contained-git.js";
import { describeCgroupLimits } from "../../src/sandbox/process-cgroup.js";
import { defaultSandboxLimits } from "../../src/sandbox/types.js";
import { scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool } from "../../src/tools/run-command.js";
import { fakeContext } from "../tools/helpers.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "./fixture.js";

/**
 * Red-team pass 9: what Mercury itself does with a workspace the agent prepared (its git calls for
 * the change tracker), and what bounds all of a command's processes together. Every probe stays
 * harmless on the host: a hook that would escape only writes a marker file in the test's own folder.
 */
let user: FakeUser;
let folders = 0;

beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
});
afterAll(async () => user?.cleanup());

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-C", cwd, "-c", "user.email=a@b.c", "-c", "user.name=t", ...args], {
    encoding: "utf8",
  });

function repository(parent: string): string {
  const folder = join(parent, `repo-${++folders}`);
  mkdirSync(folder, { recursive: true });
  git(folder, "init", "-q", "-b", "main");
  writeFileSync(join(folder, "README.md"), "readme\n");
  git(folder, "add", "README.md");
  git(folder, "commit", "-q", "-m", "first");
  return folder;
}

/** A hook the agent plants: run by `git add` (post-index-change), it writes `marker` and `proof`. */
function plantHook(folder: string, marker: string, proof: string): void {
  mkdirSync(folder, { recursive: true });
  const hook = join(folder, "post-index-change");
  writeFileSync(hook, `#!/bin/sh\necho ran > '${proof}'\necho escaped > '${marker}'\n`);
  chmodSync(hook, 0o755);
}

const containment = (): GitContainment => ({ userHome: user.home, mercuryHome: user.mercuryHome });

describe("the change tracker's git on a repository the agent prepared", () => {
  it("a .git file naming another repository's git folder: that folder is never made writable", async () => {
    // The user's other project uses husky: its config runs hooks from the worktree's .husky folder.
    const other = repository(user.outside);
    git(other, "config", "core.hooksPath", ".husky");
    const workspace = join(user.home, `project-${++folders}`);
    mkdirSync(workspace);
    writeFileSync(join(workspace, ".git"), `gitdir: ${join(other, ".git")}\n`);
    const planted = join(other, ".git", "hooks", "pre-commit");
    const proof = join(workspace, "hook-ran");
    // Inside the sandbox the hook would write a pre-commit hook into the other repository.
    plantHook(join(workspace, ".husky"), planted, proof);
    const tracker = createChangeTracker(workspace, undefined, { containment: containment() });
    await tracker.begin();
    const report = await tracker.report();
    expect(report.method).toBe("none");
    expect(report.note).toMatch(/outside the project and not a linked worktree/);
    expect(existsSync(planted)).toBe(false);
    expect(existsSync(proof)).toBe(false);
  });

  it("a top folder the sandbox refuses (named like a key file): its hook runs contained, not on the host", async () => {
    const workspace = join(user.home, `project-${++folders}`);
    const top = join(workspace, "deploy.key");
    mkdirSync(top, { recursive: true });
    git(top, "init", "-q", "-b", "main");
    writeFileSync(join(top, "a.txt"), "a\n");
    // cwd is the workspace; its .git file and core.worktree make rev-parse answer `deploy.key`.
    writeFileSync(join(workspace, ".git"), "gitdir: deploy.key/.git\n");
    git(top, "config", "core.worktree", top);
    const marker = join(user.outside, `escaped-${folders}`);
    // The git folder is the one place the contained git may write: the hook proves it ran there.
    const proof = join(top, ".git", "hook-ran");
    git(top, "config", "core.hooksPath", join(workspace, "hooks"));
    plantHook(join(workspace, "hooks"), marker, proof);
    const tracker = createChangeTracker(workspace, undefined, { containment: containment() });
    await tracker.begin();
    await tracker.report();
    expect(readFileSync(proof, "utf8")).toBe("ran\n");
    expect(existsSync(marker)).toBe(false);
  });

  it("a home folder under git (read-only top): Mercury's home stays hidden from what git runs", async () => {
    const own = await makeFakeUser();
    try {
      git(own.home, "init", "-q", "-b", "main");
      const leak = join(own.home, ".git", "leak");
      git(own.home, "config", "core.hooksPath", join(own.home, "hooks"));
      mkdirSync(join(own.home, "hooks"));
      const hook = join(own.home, "hooks", "post-index-change");
      writeFileSync(hook, `#!/bin/sh\ncat '${own.secrets.dotEnv}' > '${leak}' 2>&1\necho ran >> '${leak}'\n`);
      chmodSync(hook, 0o755);
      const tracker = createChangeTracker(own.workspace, undefined, {
        containment: { userHome: own.home, mercuryHome: own.mercuryHome },
      });
      await tracker.begin();
      await tracker.report();
      const seen = readFileSync(leak, "utf8");
      expect(seen).toContain("ran");
      expect(seen).not.toContain("sk-fake-mercury-key");
    } finally {
      await own.cleanup();
    }
  });

  it("a genuine linked worktree outside the main repository still reports its changes", async () => {
    const main = repository(user.home);
    const worktree = join(user.outside, `worktree-${++folders}`);
    git(main, "worktree", "add", "-q", "-b", `feature-${folders}`, worktree);
    const tracker = createChangeTracker(worktree, undefined, { containment: containment() });
    await tracker.begin();
    writeFileSync(join(worktree, "new.txt"), "one\ntwo\n");
    const report = await tracker.report();
    expect(report.note).toBeUndefined();
    expect(report.method).toBe("git");
    expect(report.files).toEqual([{ path: "new.txt", added: 2, removed: 0 }]);
  });

  it("a genuine submodule (its git folder in the superproject's .git/modules) still reports its changes", async () => {
    const library = repository(user.outside);
    const superproject = repository(user.home);
    git(superproject, "-c", "protocol.file.allow=always", "submodule", "add", "-q", library, "library");
    const submodule = join(superproject, "library");
    const tracker = createChangeTracker(submodule, undefined, { containment: containment() });
    await tracker.begin();
    writeFileSync(join(submodule, "added.txt"), "x\n");
    const report = await tracker.report();
    expect(report.note).toBeUndefined();
    expect(report.files).toEqual([{ path: "added.txt", added: 1, removed: 0 }]);
  });
});

describe("Mercury's own control plane", () => {
  it("the daemon's socket in MERCURY_HOME cannot be reached, and the command holds no capability", async () => {
    const socket = join(user.mercuryHome, "mercury.sock");
    const connections: string[] = [];
    const server = createServer((connection) => {
      connections.push("daemon");
      connection.end('{"approve":true}\n');
    });
    await new Promise<void>((listening) => server.listen(socket, listening));
    try {
      const tool = createRunCommandTool({
        killGraceMs: 300,
        env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
        sandbox: { userHome: user.home, require: true },
      });
      const result = await tool.execute(
        {
          command: `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${socket}'); print('CONNECTED', s.recv(64))" 2>&1 | tail -1; grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status`,
        },
        fakeContext({ cwd: user.workspace, home: user.mercuryHome }),
      );
      const text = result.ok ? result.output : result.error;
      expect(text).toMatch(/No such file or directory/);
      expect(text).not.toContain("CONNECTED");
      expect(text).toMatch(/CapEff:\s+0+\n/);
      expect(text).toMatch(/CapPrm:\s+0+\n/);
      expect(text).toMatch(/NoNewPrivs:\s+1/);
      expect(connections).toEqual([]);
    } finally {
      await new Promise<void>((closed) => server.close(() => closed()));
    }
  });
});

describe("the git guard's repairs (Mercury writes there, outside the sandbox)", () => {
  it("a link swapped to another repository: the guard never writes or deletes through it", async () => {
    // The user's other project: its config names a program (git-lfs), as many do.
    const other = repository(user.outside);
    git(other, "config", "filter.lfs.process", "git-lfs filter-process");
    const otherConfig = readFileSync(join(other, ".git", "config"), "utf8");
    // The workspace: a repository reached through a link inside it, `.git` naming the link.
    const workspace = join(user.home, `project-${++folders}`);
    mkdirSync(workspace);
    git(workspace, "init", "-q", "decoy");
    symlinkSync("decoy", join(workspace, "link"));
    writeFileSync(join(workspace, ".git"), "gitdir: link/.git\n");
    const tool = createRunCommandTool({
      killGraceMs: 300,
      env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
      sandbox: { userHome: user.home, require: true },
    });
    // The command only swaps a link inside the workspace; the guard's "put back" would then have
    // deleted the other project's config and written the decoy's in its place.
    const result = await tool.execute(
      { command: `ln -sfn '${other}' link && readlink link` },
      fakeContext({ cwd: workspace, home: user.mercuryHome }),
    );
    const text = result.ok ? result.output : result.error;
    expect(text).toContain(other);
    expect(readFileSync(join(other, ".git", "config"), "utf8")).toBe(otherConfig);
    // Nor is git in the workspace left following the link into the other repository (whose config's
    // relative hooksPath would run the project's own .husky scripts at the user's next commit).
    expect(text).toMatch(/now leads git out of the workspace through a link/);
    expect(existsSync(join(workspace, ".git"))).toBe(false);
    expect(readFileSync(join(workspace, ".git.replaced-by-command"), "utf8")).toBe("gitdir: link/.git\n");
  });
});

describe("all of a command's processes together", () => {
  // Three processes, each under the per-process limit, one started by the other: 100 MiB each.
  const chain = [
    "import subprocess, sys",
    "depth = int(sys.argv[1])",
    'block = b"\\x01" * (100 << 20)',
    'print(f"holding {depth}", flush=True)',
    "if depth < 3: sys.exit(subprocess.call([sys.executable, __file__, str(depth + 1)]))",
    'print("all held", flush=True)',
  ].join("\n");

  async function runChain(totalMemoryBytes: number) {
    writeFileSync(join(user.workspace, "chain.py"), `${chain}\n`);
    const tool = createRunCommandTool({
      killGraceMs: 300,
      env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
      sandbox: {
        userHome: user.home,
        require: true,
        limits: { ...defaultSandboxLimits, memoryBytes: 256 * 1024 ** 2, totalMemoryBytes },
      },
    });
    const result = await tool.execute(
      { command: "python3 chain.py 1" },
      fakeContext({ cwd: user.workspace, home: user.mercuryHome }),
    );
    return result.ok ? result.output : result.error;
  }

  it("are held to the total memory limit, where Mercury may make a memory cgroup (doctor says which)", async () => {
    const line = describeCgroupLimits();
    if (line.includes("per process only")) {
      // Reported, not pretended: doctor's "sandbox limits" line says the total is not bounded.
      expect(line).toMatch(/a command's processes together are not bounded/);
      return;
    }
    expect(line).toMatch(/total memory: a memory cgroup per command/);
    const under = await runChain(300 * 1024 ** 2);
    expect(under).toContain("holding 2");
    // The group's OOM killer kills one of the three (SIGKILL), not necessarily the one allocating:
    // when it picks an ancestor, the third may still print "all held" (seen in a fresh-clone CI run).
    // What the limit guarantees is that one of them is killed: a killed child makes its parent exit
    // with -9 (247), a killed first process ends the command by SIGKILL (137).
    expect(under).toMatch(/exit code: (247|137)\b|signal: SIGKILL/);
    // The same program with room for all three: the limit made the difference, not the program.
    const room = await runChain(1024 ** 3);
    expect(room).toContain("all held");
    expect(room).not.toMatch(/exit code: (247|137)\b|signal: SIGKILL/);
    // Each command's group is removed when it ends.
    const parent = /below (\S+)/.exec(line)?.[1] ?? "";
    expect(readdirSync(parent).filter((name) => name.startsWith(`mercury-${process.pid}-`))).toEqual([]);
  });
});
