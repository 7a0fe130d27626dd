import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool } from "../../src/tools/run-command.js";
import { fakeContext } from "../tools/helpers.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "./fixture.js";

/**
 * Red-team pass 8 against the second wall alone: the authorizer allows everything (as `--yes` does,
 * no person approved anything) and each command runs in the real bubblewrap sandbox.
 */
let user: FakeUser;
let repositories = 0;

beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
});
afterAll(async () => user?.cleanup());

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-C", cwd, "-c", "user.email=a@b.c", "-c", "user.name=t", ...args], {
    encoding: "utf8",
  });

/** A project folder of its own per test: a repository with one commit. */
function freshRepository(): string {
  const folder = join(user.home, `repo-${++repositories}`);
  mkdirSync(folder);
  git(folder, "init", "-q", "-b", "main");
  writeFileSync(join(folder, "README.md"), "readme\n");
  git(folder, "add", "README.md");
  git(folder, "commit", "-q", "-m", "first");
  return folder;
}

async function run(command: string, cwd: string) {
  const tool = createRunCommandTool({
    killGraceMs: 300,
    env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
    sandbox: { userHome: user.home, require: true },
  });
  const result = await tool.execute({ command }, fakeContext({ cwd, home: user.mercuryHome }, "allow"));
  return { ok: result.ok, text: result.ok ? result.output : result.error };
}

const read = (path: string) => readFileSync(path, "utf8");

describe("the sandbox's /proc", () => {
  it("keeps the kernel's settings read-only: as root, kernel.core_pattern cannot even be opened for writing", async () => {
    // Opening without writing changes nothing, whatever the outcome: the probe is safe on the host.
    const { text } = await run(
      `python3 -c "import os; os.open('/proc/sys/kernel/core_pattern', os.O_WRONLY); print('OPENED')" 2>&1; grep ' /proc/sys ' /proc/self/mountinfo; echo 500 > /proc/self/oom_score_adj && echo own-files-writable`,
      user.workspace,
    );
    expect(text).not.toContain("OPENED");
    expect(text).toMatch(process.getuid?.() === 0 ? /Read-only file system/ : /Read-only|Permission denied/);
    expect(text).toMatch(/ \/proc\/sys ro,/);
    expect(text).toContain("own-files-writable");
  });

  it("hides the kernel keyrings' list and still shows the command's own processes", async () => {
    const { text } = await run(
      "cat /proc/keys /proc/key-users 2>&1; grep -c '^Pid' /proc/self/status",
      user.workspace,
    );
    expect(text).not.toMatch(/keyring|_uid/);
    expect(text).toMatch(/^1$/m);
  });
});

describe("git state planted where the old guard did not look is put back", () => {
  it("mv .git away and a planted repository in its place: the original comes back", async () => {
    const repo = freshRepository();
    const { ok, text } = await run(
      "mv .git .git-old && git init -q . && git config core.fsmonitor 'touch /tmp/pwned' && echo planted",
      repo,
    );
    expect(ok).toBe(false);
    expect(text).toContain("planted");
    expect(text).toContain("moved to .git-old");
    expect(git(repo, "log", "--format=%s")).toBe("first\n");
    expect(read(join(repo, ".git", "config"))).not.toContain("fsmonitor");
    expect(existsSync(join(repo, ".git-old"))).toBe(false);
    expect(read(join(repo, ".git.replaced-by-command", "config"))).not.toContain("fsmonitor");
  });

  it("a .git file pointing outside the workspace in place of the repository", async () => {
    const repo = freshRepository();
    const { text } = await run(`mv .git real-git && printf 'gitdir: ${user.outside}\\n' > .git`, repo);
    expect(text).toContain("moved to real-git");
    expect(git(repo, "log", "--format=%s")).toBe("first\n");
  });

  it.each([
    [
      "a new repository in a subfolder",
      "git init -q sub && git -C sub config core.fsmonitor 'id'",
      "sub/.git/config",
    ],
    [
      "a bare layout in a subfolder",
      "git init -q --bare tools && git -C tools config core.pager 'sh -c id'",
      "tools/config",
    ],
    [
      "a .git file naming a planted folder",
      "mkdir -p sub2 evil && printf 'gitdir: ../evil\\n' > sub2/.git && printf '[core]\\n\\thooksPath = /x\\n' > evil/config",
      "evil/config",
    ],
  ])("%s keeps everything but the program-running keys", async (_name, command, config) => {
    const repo = freshRepository();
    const { ok, text } = await run(command, repo);
    expect(ok).toBe(false);
    expect(text).toContain(`Mercury put back ${config}`);
    expect(read(join(repo, config))).not.toMatch(/fsmonitor|pager|hooksPath/);
  });

  it("a hook planted in a copy of .git (where the read-only bind does not reach) is removed", async () => {
    const repo = freshRepository();
    const { text } = await run(
      "mkdir sub && cp -r .git sub/.git && printf '#!/bin/sh\\nid\\n' > sub/.git/hooks/pre-commit && chmod +x sub/.git/hooks/pre-commit",
      repo,
    );
    expect(text).toContain("sub/.git/hooks/pre-commit (a hook");
    expect(existsSync(join(repo, "sub", ".git", "hooks", "pre-commit"))).toBe(false);
    expect(existsSync(join(repo, "sub", ".git", "config"))).toBe(true);
  });

  it("a file the repository's config includes, and a core.hooksPath folder in the project, are watched", async () => {
    const repo = freshRepository();
    writeFileSync(join(repo, "team.gitconfig"), "[user]\n\tname = team\n");
    git(repo, "config", "include.path", "../team.gitconfig");
    mkdirSync(join(repo, ".husky"));
    git(repo, "config", "core.hooksPath", ".husky");
    const { text } = await run(
      "printf '[core]\\n\\tfsmonitor = id\\n' >> team.gitconfig; printf '#!/bin/sh\\nid\\n' > .husky/pre-commit",
      repo,
    );
    expect(text).toContain("team.gitconfig (core.fsmonitor)");
    expect(text).toContain(".husky/pre-commit (a hook");
    expect(read(join(repo, "team.gitconfig"))).toBe("[user]\n\tname = team\n");
    expect(existsSync(join(repo, ".husky", "pre-commit"))).toBe(false);
  });

  it("legitimate work keeps working: commit, remote add, push -u to a local bare repository, worktree, re-init", async () => {
    const repo = freshRepository();
    const { ok, text } = await run(
      "echo change >> README.md && git -c user.email=a@b.c -c user.name=t commit -qam second && " +
        "git init -q --bare remote.git && git remote add origin ./remote.git && git push -q -u origin main 2>&1 && " +
        "git worktree add -q wt 2>&1 && git -C wt status --short && git rev-parse --abbrev-ref main@{upstream}",
      repo,
    );
    expect(ok, text).toBe(true);
    expect(text).toContain("origin/main");
    expect(git(repo, "log", "--format=%s")).toBe("second\nfirst\n");
    expect(git(join(repo, "remote.git"), "log", "--format=%s", "main")).toBe("second\nfirst\n");
    expect(read(join(repo, ".git", "config"))).toContain('[branch "main"]');
    const reinit = await run("rm -rf sub && mkdir sub && cd sub && git init -q && git status --short", repo);
    expect(reinit.ok, reinit.text).toBe(true);
  });
});

describe("what namespaces do not separate", () => {
  it("the kernel keyrings: keyctl is refused inside, while ordinary programs run", async () => {
    const keyctl = (spec: number) =>
      `python3 -c "import ctypes; l=ctypes.CDLL(None, use_errno=True); r=l.syscall(${process.arch === "arm64" ? 219 : 250}, 0, ${spec}, 0); print('keyring', r, 'errno', ctypes.get_errno())"`;
    // On the host the session keyring exists (the sandbox shared it, and as root the user keyring too).
    const host = execFileSync("sh", ["-c", keyctl(-3)], { encoding: "utf8" });
    expect(host).toMatch(/keyring [1-9]\d* errno 0/);
    const { text } = await run(
      `${keyctl(-3)}; ${keyctl(-4)}; grep Seccomp: /proc/self/status`,
      user.workspace,
    );
    expect(text.match(/keyring -1 errno 1\b/g)).toHaveLength(2);
    const ordinary = await run(
      "node -e \"console.log('node', 1 + 1)\" && git --version && python3 -c 'print(2 + 2)'",
      user.workspace,
    );
    expect(ordinary.ok, ordinary.text).toBe(true);
    expect(ordinary.text).toContain("node 2");
  });

  it("descriptors Mercury inherited from its parent (40 and 250 here) do not reach the command", async () => {
    // Mercury started by a parent that left a file open in it twice: the child's fds 40 and 250.
    const tool = resolve("src/tools/run-command.ts");
    const group = resolve("src/tools/process-group.ts");
    const script = join(user.root, "mercury-with-fds.mts");
    writeFileSync(
      script,
      `import { createRunCommandTool } from ${JSON.stringify(tool)};
import { scrubbedEnv } from ${JSON.stringify(group)};
const run = createRunCommandTool({ env: { ...scrubbedEnv(), HOME: ${JSON.stringify(user.home)} }, sandbox: { userHome: ${JSON.stringify(user.home)}, require: true } });
const result = await run.execute({ command: "ls /proc/self/fd | tr '\\\\n' ' '; bash -c 'echo INJECTED >&40; echo INJECTED >&250' 2>&1" }, {
  signal: new AbortController().signal, cwd: ${JSON.stringify(user.workspace)}, home: ${JSON.stringify(user.mercuryHome)},
  sessionId: "s", taskId: "t", userKey: "owner", authorize: async () => ({ allowed: true, rule: "test.allow" }), reportActivity: () => {},
});
process.stdout.write(JSON.stringify(result));
`,
    );
    // A parent that is not Node (a shell, an editor's launcher) leaves a file open on fds 40 and 250
    // without close-on-exec (Node's own children get theirs closed on exec).
    const parentLog = join(user.root, "parent-log.txt");
    writeFileSync(parentLog, "");
    const child = spawn(
      "bash",
      ["-c", 'exec "$@" 40>>"$0" 250>>"$0"', parentLog, process.execPath, "--import", "tsx", script],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    let errors = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(code, errors).toBe(0);
    const result = JSON.parse(output) as { ok: boolean; output?: string; error?: string };
    const text = result.output ?? result.error ?? "";
    expect(text).toMatch(/Bad file descriptor/);
    expect(text).not.toMatch(/(^|\s)11(\s|$)/m);
    expect(readFileSync(parentLog, "utf8")).not.toContain("INJECTED");
  });
});

describe("credentials in the environment under names the first filter misses", () => {
  const planted = {
    MYSQL_PWD: "mysql-pwd-s8-1",
    AWS_ACCESS_KEY_ID: "AKIA-S8-FAKE",
    SENTRY_DSN: "https://s8key@sentry.example/1",
    GITHUB_PAT: "ghp_s8fake",
    npm_config__auth: "s8-npm-auth",
  };

  it("are unset inside the sandbox, while PATH and HOME stay", async () => {
    Object.assign(process.env, planted);
    try {
      const tool = createRunCommandTool({
        env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
        sandbox: { userHome: user.home, require: true },
      });
      const result = await tool.execute(
        { command: 'env; echo "home=$HOME"' },
        fakeContext({ cwd: user.workspace, home: user.mercuryHome }, "allow"),
      );
      const text = result.ok ? result.output : result.error;
      expect(result.ok, text).toBe(true);
      for (const value of Object.values(planted)) expect(text).not.toContain(value);
      expect(text).toContain(`home=${user.home}`);
      expect(text).toMatch(/^PATH=/m);
    } finally {
      for (const name of Object.keys(planted)) delete process.env[name];
    }
  });
});
