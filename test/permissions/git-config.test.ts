import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPermissionContext } from "../../src/permissions/context.js";
import { decide } from "../../src/permissions/decide.js";
import { gitConfigRisk, parseGitConfig } from "../../src/permissions/git-config.js";

function repository(config: string): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "mercury-gitcfg-")));
  execFileSync("git", ["init", "-q", root]);
  writeFileSync(join(root, ".git", "config"), `[core]\n\trepositoryformatversion = 0\n${config}`);
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "a.ts"), "export {};\n");
  return root;
}

function contextFor(cwd: string) {
  return createPermissionContext({
    cwd,
    home: realpathSync(mkdtempSync(join(tmpdir(), "mercury-home-"))),
    mercuryHome: realpathSync(mkdtempSync(join(tmpdir(), "mercury-mh-"))),
    sessionId: "s",
    userKey: "owner",
    taskId: "t",
  });
}

describe("a repository's own git config is untrusted", () => {
  const attacks: [string, string][] = [
    ["\tfsmonitor = touch /tmp/pwned\n", "git status"],
    ['[diff]\n\texternal = "sh -c id"\n', "git diff"],
    ['[diff "x"]\n\ttextconv = ./evil\n', "git log -p"],
    ['[filter "lfs"]\n\tclean = ./evil %f\n', "git status"],
    ["\tpager = ./evil\n", "git log"],
    ['[diff "a.b"]\n\tcommand = ./evil\n', "git diff"],
    ["[include]\n\tpath = ../evil.cfg\n", "git status"],
    ['[includeIf "gitdir:/"]\n\tpath = ../evil.cfg\n', "git show"],
  ];
  for (const [config, command] of attacks) {
    it(`asks for "${command}" when .git/config has ${config.trim().split("\n").at(-1)?.trim()}`, async () => {
      const root = repository(config);
      const decision = await decide({ kind: "command", command, cwd: root }, contextFor(root));
      expect(decision).toMatchObject({ decision: "ask", rule: "command.git-repo-config" });
    });
  }

  it("finds the repository from a subfolder and through git -C", async () => {
    const root = repository("\tfsmonitor = ./evil\n");
    const sub = join(root, "src");
    expect((await decide({ kind: "command", command: "git status", cwd: sub }, contextFor(sub))).rule).toBe(
      "command.git-repo-config",
    );
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "mercury-out-")));
    const context = createPermissionContext({ ...contextFor(outside), readRoots: [root] });
    expect(
      (await decide({ kind: "command", command: `git -C ${root} status`, cwd: outside }, context)).rule,
    ).toBe("command.git-repo-config");
  });

  it("still allows read-only git in a plain repository, and with the built-in fsmonitor", async () => {
    for (const config of ["", "\tfsmonitor = true\n"]) {
      const root = repository(config);
      const decision = await decide({ kind: "command", command: "git status", cwd: root }, contextFor(root));
      expect(decision).toMatchObject({ decision: "allow", rule: "command.readonly" });
    }
  });

  it("parses sections, subsections and keys case-insensitively", () => {
    expect(parseGitConfig('[Core]\n\tFsMonitor = x\n[diff "Tool"]\n\ttextConv=y\n# c\n')).toEqual([
      { key: "core.fsmonitor", value: "x" },
      { key: "diff.Tool.textconv", value: "y" },
    ]);
    expect(gitConfigRisk(realpathSync(mkdtempSync(join(tmpdir(), "mercury-nogit-"))))).toBeNull();
  });
});
