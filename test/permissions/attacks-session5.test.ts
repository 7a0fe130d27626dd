import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowAllCoverage } from "../../src/permissions/containment.js";
import { decide } from "../../src/permissions/decide.js";
import { sedScriptIsReadonly } from "../../src/permissions/readonly-sed.js";
import { makeHome } from "../helpers/cli.js";
import { policyChecker } from "../helpers/policy-check.js";
import { session5CommandAttacks, session5PersonOnly } from "./attack-cases-session5.js";
import { runAttackTables, sandboxReady } from "./attack-table-runner.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

/** A bare repository (no .git) whose config runs a program on `git diff`, and a husky-style hooks folder. */
function addRepositories(project: string): void {
  const bare = join(project, "bare");
  mkdirSync(join(bare, "objects"), { recursive: true });
  mkdirSync(join(bare, "refs"), { recursive: true });
  writeFileSync(join(bare, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(bare, "config"), "[core]\n\tbare = true\n[diff]\n\texternal = ./steal.sh\n");
  const hooked = join(project, "hooked");
  mkdirSync(join(hooked, ".git"), { recursive: true });
  mkdirSync(join(hooked, ".husky"), { recursive: true });
  writeFileSync(join(hooked, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(hooked, ".git", "config"), "[core]\n\thooksPath = .husky\n");
}

let sandbox: Sandbox;
beforeAll(() => {
  // Without the hard-linked secret, so allow-all coverage is decided by each command alone.
  sandbox = createSandbox({ withHardLinkedSecret: false });
  addRepositories(sandbox.project);
});
afterAll(() => sandbox.cleanup());

describe("red-team pass 5", () => {
  runAttackTables({
    sandbox: () => sandbox,
    attacks: session5CommandAttacks,
    personOnly: session5PersonOnly,
  });
  it("keeps everyday commands next to the tightened classes allowed", async () => {
    for (const command of [
      "sed -n 1,10p README.md",
      "sed -n '/foo/p' README.md",
      "sed 's/foo/bar/g' README.md",
      "sed -n -e 1p -e '$p' README.md",
      "sed '/^#/d' README.md",
      "sed -n '1~2p;3q' README.md",
      "node --version",
      "git --version",
      "git version",
      "java -version",
      "git grep -n foo",
      "git grep -e O foo",
      "git diff --stat",
      "cat .env.example",
      "ls -la",
      "[[ -f README.md ]] && echo yes",
      "git log -- credential-helper.ts",
      "ls src/*.ts",
      "cat src/*.ts",
    ]) {
      const result = await decide({ kind: "command", command, cwd: sandbox.project }, sandbox.context);
      if (command.includes("&&")) expect(result.rule, command).toBe("command.chain");
      else expect({ command, decision: result.decision }).toEqual({ command, decision: "allow" });
    }
  });

  it("keeps reading git settings and project installs within allow-all's reach", async () => {
    for (const command of [
      "git config --get user.email",
      "git config -l",
      "npm install lodash",
      "ln -s src s",
      "systemctl --user status mercury",
      "docker ps",
      "pass ls",
      "python3 -c \"open('out.txt','w').write('x')\"",
      "node -e \"console.log(require('os').homedir())\"",
      "kubectl config view",
      "truncate -s 0 *.md",
      "sqlite3 x.db <<< 'select 1;'",
    ]) {
      const request = { kind: "command" as const, command, cwd: sandbox.project };
      const result = await decide(request, sandbox.context);
      expect(result.decision, command).toBe("ask");
      const coverage = allowAllCoverage(request, result, sandbox.context, sandboxReady);
      expect(coverage.covered, `${command}: ${result.rule}`).toBe(true);
    }
  });
});

describe("file tools on the pass-5 classes", () => {
  it.each([
    ["~/.codex/auth.json", "read", "deny", "path.sensitive"],
    ["~/.claude/.credentials.json", "write", "deny", "path.sensitive"],
    ["%MH%/.env.bak", "read", "deny", "path.sensitive"],
    ["/run/secrets/token", "read", "deny", "path.sensitive"],
    [".envrc", "read", "ask", "path.env-file"],
    [".envrc", "write", "ask", "path.env-file"],
    [".npmrc", "write", "ask", "path.env-file"],
    ["terraform.tfstate", "read", "ask", "path.env-file"],
    ["hooked/.husky/pre-commit", "write", "ask", "path.git-internals"],
    ["/dev/sda", "read", "deny", "hardline.device"],
  ] as const)("%s (%s) -> %s %s", async (path, access, decision, rule) => {
    const result = await decide({ kind: "path", path: sandbox.fill(path), access }, sandbox.context);
    expect({ decision: result.decision, rule: result.rule }).toEqual({ decision, rule });
  });
});

describe("sed's script reader", () => {
  it.each([
    ["1,20p", true],
    ["/a/,/b/p", true],
    ["s/a\\/b/c/g", true],
    ["$!N;P;D", true],
    ["/x/{p;d}", true],
    ["w out", false],
    ["s/a/b/w out", false],
    ["s/a/b/e", false],
    ["1e id", false],
    ["r /etc/passwd", false],
    ["R x", false],
    ["W x", false],
    ["s/[/]/x/w out", false],
    ["s/a/b/;w out", false],
    ["p # comment", false],
    ["s|a|b|", false],
    ["y/ab/cd/", false],
  ])("%s -> read-only %s", (script, readonly) => {
    expect(sedScriptIsReadonly(script)).toBe(readonly);
  });
});

describe("mercury policy check (built binary) on pass-5 attacks", () => {
  it("exits 1 for deny, 4 for ask and 0 for allow", async () => {
    const { home, userHome, workspace } = makeHome();
    writeFileSync(join(workspace, "README.md"), "# project\n");
    addRepositories(workspace);
    const check = policyChecker({ home, userHome, workspace });
    for (const [command, code] of [
      ["a=( $(rm -rf ~) )", 1],
      ["ln -s ~ h && cat h/.aws/credentials", 1],
      ["cat ~/.codex/auth.json", 1],
      [`cat ${home}/.env.bak`, 1],
      ["make version", 4],
      ["git grep -nOid foo", 4],
      ["constructor", 4],
      ["git -C bare diff HEAD~1 HEAD", 4],
      ["git config core.fsmonitor id", 4],
      ["cat .envrc", 4],
      ["sed -n 1,5p README.md", 0],
      ["git version", 0],
    ] as const) {
      const result = await check(command, code);
      expect({ command, code: result.code, stderr: result.stderr }).toEqual({ command, code, stderr: "" });
      expect(JSON.parse(result.stdout)).toHaveProperty("decision");
    }
  });
});
