import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { registerPolicyCommands } from "../../src/cli/commands/policy.js";
import { AuditLog } from "../../src/permissions/audit.js";
import { openDatabase } from "../../src/storage/database.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

let sandbox: Sandbox;
let dbPath: string;
let stdout: string;
let stderr: string;

beforeEach(() => {
  sandbox = createSandbox();
  dbPath = join(sandbox.root, "mercury.db");
  stdout = "";
  stderr = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  process.exitCode = undefined;
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
  sandbox.cleanup();
});

async function run(...args: string[]): Promise<void> {
  const program = new Command().exitOverride();
  registerPolicyCommands(program, {
    openDatabase: () => openDatabase(dbPath),
    home: sandbox.mercuryHome,
    userHome: sandbox.home,
  });
  await program.parseAsync(["node", "mercury", ...args]);
}

describe("mercury policy", () => {
  it("check --json prints one document with decision, rule and reason", async () => {
    await run("policy", "check", "--json", "--cwd", sandbox.project, "--", "rm", "-rf", "~");
    const document = JSON.parse(stdout) as { decision: string; rule: string; reason: string };
    expect(document).toMatchObject({ decision: "deny", rule: "hardline.rm-root" });
    expect(document.reason).toMatch(/home folder/);
    expect(process.exitCode).toBe(1);
  });

  it("check exits 0 for allow, 1 for deny and 4 for ask", async () => {
    for (const [words, code] of [
      [["ls", "-la"], 0],
      [["rm", "--recu", "-f", "~"], 1],
      [["sort", "--outp=x", "README.md"], 4],
      [["git", "stash", "-u"], 4],
    ] as const) {
      process.exitCode = undefined;
      stdout = "";
      await run("policy", "check", "--cwd", sandbox.project, "--", ...words);
      expect(process.exitCode ?? 0, words.join(" ")).toBe(code);
    }
    process.exitCode = undefined;
    stdout = "";
    await run(
      "policy",
      "check",
      "--json",
      "--cwd",
      sandbox.project,
      "--path",
      `${sandbox.mercuryHome}/config.yaml`,
      "--write",
    );
    expect(JSON.parse(stdout)).toMatchObject({ decision: "deny", rule: "path.mercury-state" });
    expect(process.exitCode).toBe(1);
  });

  it("check allows a read-only command exactly as the agent would", async () => {
    await run("policy", "check", "--json", "--cwd", sandbox.project, "--", "git", "status");
    expect(JSON.parse(stdout)).toMatchObject({ decision: "allow", rule: "command.readonly" });
  });

  it("check --path --read reports the resolved path", async () => {
    await run("policy", "check", "--json", "--cwd", sandbox.project, "--path", "innocent.txt", "--read");
    expect(JSON.parse(stdout)).toMatchObject({ decision: "deny", rule: "path.sensitive" });
  });

  it("check prints a readable line without --json", async () => {
    await run("policy", "check", "--cwd", sandbox.project, "--", "ls; rm x");
    expect(stdout).toMatch(/^ask {2}command\.chain/);
  });

  it("usage errors exit 2 with what to do", async () => {
    await run("policy", "check", "--path", "x");
    expect(process.exitCode).toBe(2);
    expect(stderr).toMatch(/--path needs exactly one of --read or --write/);
    process.exitCode = undefined;
    stderr = "";
    await run("policy", "check");
    expect(process.exitCode).toBe(2);
    expect(stderr).toMatch(/give a command after "--"/);
  });

  it("log --json lists audit entries, newest first", async () => {
    const database = openDatabase(dbPath);
    const audit = new AuditLog(database, { now: () => new Date() });
    audit.record({
      tool: "run_command",
      summary: "run: ls",
      decision: "allow",
      outcome: "allowed",
      rule: "command.readonly",
      reason: "ok",
    });
    audit.record({
      tool: "run_command",
      summary: "run: rm -rf /",
      decision: "deny",
      outcome: "refused",
      rule: "hardline.rm-root",
      reason: "no",
    });
    database.close();
    await run("policy", "log", "--json", "-n", "5");
    const { entries } = JSON.parse(stdout) as { entries: { rule: string }[] };
    expect(entries.map((entry) => entry.rule)).toEqual(["hardline.rm-root", "command.readonly"]);
  });

  it("log rejects a bad -n", async () => {
    await run("policy", "log", "-n", "zero");
    expect(process.exitCode).toBe(2);
    expect(stderr).toMatch(/-n must be a whole number/);
  });
});
