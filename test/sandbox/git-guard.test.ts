import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { configEntries, newProgramSettings } from "../../src/sandbox/git-guard.js";
import { scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool } from "../../src/tools/run-command.js";
import type { AuthorizationResult } from "../../src/tools/types.js";
import { fakeContext } from "../tools/helpers.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "./fixture.js";

/**
 * The hooks folder is read-only in the sandbox, but `.git/config` cannot be (`git remote add`,
 * `push -u` write it). A command approved by allow-all that points git at a program through the
 * config, or at another repository through `.git/commondir`, would have it run at the user's next
 * git command, outside the sandbox: git-guard.ts puts such a change back and says so.
 */
let user: FakeUser;
let original: string;

beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
  execFileSync("git", ["init", "-q", user.workspace]);
  original = readFileSync(join(user.workspace, ".git", "config"), "utf8");
});
afterAll(async () => user?.cleanup());
beforeEach(() => {
  writeFileSync(join(user.workspace, ".git", "config"), original);
  rmSync(join(user.workspace, ".git", "commondir"), { force: true });
});

async function run(command: string, byPerson = false) {
  const tool = createRunCommandTool({
    killGraceMs: 300,
    env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
    sandbox: { userHome: user.home, require: true },
  });
  const allowed: AuthorizationResult = {
    allowed: true,
    rule: "test-allow",
    ...(byPerson ? { byPerson } : {}),
  };
  return tool.execute(
    { command },
    fakeContext({ cwd: user.workspace, home: user.mercuryHome }, () => allowed),
  );
}

const config = () => readFileSync(join(user.workspace, ".git", "config"), "utf8");

describe("what git runs later is put back after a sandboxed command", () => {
  it.each([
    "git config core.hooksPath planted-hooks",
    "git config core.fsmonitor 'touch /tmp/pwned'",
    "git config filter.x.smudge 'sh -c id'",
    "git config include.path ../planted.cfg",
    "git config alias.st '!sh -c id'",
    `printf '[core]\\n\\tpager = sh -c id\\n' >> .git/config`,
    `python3 -c "open('.git/config','a').write('[diff]\\\\n  external = /bin/id\\\\n')"`,
  ])("allow-all: %s is undone and reported as a failure", async (command) => {
    const result = await run(command);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.error).toContain("Mercury put back .git/config");
    expect(config()).toBe(original);
  });

  it("a .git/commondir the command wrote is removed", async () => {
    const result = await run("printf '../other/.git' > .git/commondir");
    expect(result.ok ? "" : result.error).toContain(".git/commondir");
    expect(existsSync(join(user.workspace, ".git", "commondir"))).toBe(false);
  });

  it("ordinary settings stay: remotes, user name, upstream branches", async () => {
    const result = await run(
      "git config user.name Ada && git remote add origin https://example.invalid/r.git && git config branch.main.remote origin",
    );
    expect(result.ok, result.ok ? "" : result.error).toBe(true);
    expect(config()).toContain("[remote");
    expect(config()).toContain("name = Ada");
  });

  it("a person who approved the exact command keeps its change", async () => {
    const result = await run("git config core.hooksPath .husky", true);
    expect(result.ok, result.ok ? "" : result.error).toBe(true);
    expect(config()).toContain("hooksPath = .husky");
  });
});

describe("reading git config text", () => {
  it("folds section and key names as git does, keeps subsections, and reads one-line sections", () => {
    expect(
      configEntries('[Core]\n\tHooksPath = x\n[filter "lfs"]\n\tsmudge = y\n[alias] st = !id\n'),
    ).toEqual(["core.hookspath=x", "filter.lfs.smudge=y", "alias.st=!id"]);
  });

  it("names only new settings that run programs; a changed value counts as new", () => {
    expect(newProgramSettings("[user]\n\tname = a\n", "[user]\n\tname = b\n")).toEqual([]);
    expect(newProgramSettings("[core]\n\tpager = less\n", "[core]\n\tpager = sh -c id\n")).toEqual([
      "core.pager",
    ]);
    expect(newProgramSettings("", '[includeIf "gitdir:~/"]\n\tpath = ~/x.cfg\n')).toEqual([
      "includeif.gitdir:~/.path",
    ]);
  });
});
