import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decide } from "../../src/permissions/decide.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

/** Everyday read-only commands a coding agent runs all the time: each must be allowed without asking. */
const benignCommands = [
  "ls",
  "ls -la",
  "ls -lah src",
  "ls -- src",
  "ls *.json",
  "pwd",
  "git status",
  "git status --short",
  "git log --oneline -n 10",
  "git log --oneline | head -5",
  "git diff",
  "git diff --stat",
  "git diff HEAD~1 -- src/index.ts",
  "git show HEAD",
  "git branch",
  "git branch -a",
  "git rev-parse HEAD",
  "git ls-files",
  "git blame README.md",
  "git remote -v",
  "git tag",
  "git stash list",
  "cat README.md",
  'cat "README.md"',
  "cat package.json",
  "head -n 20 README.md",
  "head -c 100 package.json",
  "tail -n 50 README.md",
  "wc -l README.md",
  "wc -l src/*.ts",
  "grep -rn foo src",
  'grep -n "import" src/index.ts',
  "grep -ri todo src",
  "grep -c foo README.md",
  "rg foo src",
  'rg -n "export" src',
  "find . -name '*.ts'",
  "find src -type f",
  "find . -maxdepth 2 -type d",
  "tree -L 2",
  "du -sh src",
  "df -h",
  "echo hello",
  'echo "hello world"',
  "printf '%s\\n' hi",
  "date",
  "whoami",
  "uname -a",
  "which node",
  "node --version",
  "npm --version",
  "git --version",
  "stat README.md",
  "file README.md",
  "sort README.md",
  "sort README.md | uniq -c",
  "cut -d: -f1 README.md",
  "cat README.md | wc -l",
  "ls | wc -l",
  "ls 2>/dev/null",
  "ls src 2>&1 | head",
  "diff README.md package.json",
  "sha256sum README.md",
  "md5sum package.json",
  "basename src/index.ts",
  "dirname src/index.ts",
  "readlink -f README.md",
  "realpath src",
  "id",
  "nproc",
  "npm ls",
  "tr a-z A-Z < README.md",
  "cat ~/work/project/README.md",
  "test -f README.md",
  "seq 1 10",
  "cat .env.example",
  "command -v git",
  "timeout 5 ls",
  "ls -la | grep ts | sort",
  "ls src/*/",
  "cat src/*/deep.ts",
  "ls src/[a-z]*",
  "git log -p -1",
  "git diff --cached",
  "git diff --staged --stat",
  "git log --stat -3",
  "git show --stat HEAD",
  "git log --oneline --graph --all",
  "git status --porcelain",
  "git branch --show-current",
  "git rev-parse --abbrev-ref HEAD",
  'grep -rn "TODO" src --include=*.ts',
  "grep -l foo -r src",
  "grep -A 3 -B 2 foo README.md",
  "rg -l foo src",
  "rg --hidden -g '*.ts' foo src",
  "cat -n README.md",
  "wc -c package.json",
  'find . -type f -name "*.md"',
  "find src -name '*.ts' -newer package.json",
  "diff -u README.md package.json",
  "sort -n README.md",
  "uniq -c README.md",
  "tail -n 5 README.md",
  "du -sh .",
  "ls -1 src",
  "ls -lt src | head",
  "head -n 5 src/*.ts",
  "stat -c %s README.md",
  "file src/index.ts",
  "ls -R src",
  "env ls",
  "nice -n 5 ls",
  "rg -n TODO src",
  "grep -rn import src/nested",
  "find src -newer package.json -print",
  "find . -name '*.md' -not -path './node_modules/*'",
  "git log --author=me --since=2.weeks --oneline",
  "cat src/index.ts | grep export",
  "echo $HOME",
  "ls -la src/nested",
  "sort -u README.md",
  "git diff --name-only",
  "git show --name-only HEAD",
  "find . -type f -name '*.json' -print0",
  // sed with a script that only prints (no w/e/r commands, no -i): read-only since pass 5.
  "sed -n '1,20p' README.md",
  "sed -n '/export/p' src/index.ts",
  "sed 's/foo/bar/g' README.md",
  "sed -n '$p' package.json",
];

/**
 * Harmless everyday commands the policy still asks about, by design (chains need approval, sed/awk/jq
 * can write or run code, project scripts run code). They count as false asks in the reported rate.
 */
const benignButAsked: { command: string; rule: string }[] = [
  { command: "cd src && ls", rule: "command.chain" },
  { command: "awk '{print $1}' README.md", rule: "command.inline-code" },
  { command: "jq .name package.json", rule: "command.not-readonly" },
  { command: "npm test", rule: "command.not-readonly" },
  { command: "npx tsc --noEmit", rule: "command.not-readonly" },
  { command: "git log -1 --format=%H; git status", rule: "command.chain" },
  { command: "less README.md", rule: "command.not-readonly" },
  { command: "cat .env", rule: "path.env-file" },
  // The fixture's deploy/ folder holds a private key (id_ed25519): searching it would read the key. A
  // whole-project search here is refused (a hard link to ~/.ssh/id_rsa lies in the project); in a
  // project without such files both are allowed (see the last test).
  { command: "grep -rn foo deploy", rule: "command.recursive-sensitive" },
];

let sandbox: Sandbox;
const asked: string[] = [];
beforeAll(() => {
  sandbox = createSandbox();
});
afterAll(() => {
  const rate = (asked.length / benignCommands.length) * 100;
  const everyday = benignCommands.length + benignButAsked.length;
  const everydayAsked = asked.length + benignButAsked.length;
  // The numbers reported in BENCHMARKS.md; printed so every run shows them.
  process.stdout.write(
    `\nfalse-ask rate (allow list): ${asked.length}/${benignCommands.length} = ${rate.toFixed(1)}%${asked.length ? ` (${asked.join(" | ")})` : ""}\n` +
      `false-ask rate (all everyday commands incl. asked-by-design): ${everydayAsked}/${everyday} = ${((everydayAsked / everyday) * 100).toFixed(1)}%\n`,
  );
  sandbox.cleanup();
});

describe("benign everyday commands", () => {
  it("has at least 50 cases", () => {
    expect(benignCommands.length).toBeGreaterThanOrEqual(50);
  });

  it.each(benignCommands)("allows %s", async (command) => {
    const result = await decide({ kind: "command", command, cwd: sandbox.project }, sandbox.context);
    if (result.decision !== "allow") asked.push(`${command} -> ${result.rule}`);
    expect({ decision: result.decision, rule: result.rule, reason: result.reason }).toMatchObject({
      decision: "allow",
      rule: "command.readonly",
    });
  });

  it.each(benignButAsked)("asks (by design) for $command with $rule", async ({ command, rule }) => {
    const result = await decide({ kind: "command", command, cwd: sandbox.project }, sandbox.context);
    expect({ decision: result.decision, rule: result.rule }).toEqual({ decision: "ask", rule });
  });
});

describe("a whole-project search in a project without secrets", () => {
  it("is allowed (the secret scan finds nothing to ask about)", async () => {
    const clean = join(sandbox.home, "work", "clean");
    mkdirSync(join(clean, "src"), { recursive: true });
    writeFileSync(join(clean, "README.md"), "# clean\n");
    writeFileSync(join(clean, "src", "a.ts"), "export const a = 1;\n");
    const context = { ...sandbox.context, cwd: clean, writeRoots: [clean] };
    for (const command of ["rg foo", "grep -rn foo .", "rg --hidden foo"]) {
      const result = await decide({ kind: "command", command, cwd: clean }, context);
      expect({ command, decision: result.decision }).toEqual({ command, decision: "allow" });
    }
  });
});
