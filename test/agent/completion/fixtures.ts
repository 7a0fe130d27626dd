import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AgentEvent } from "../../../src/agent/events.js";
import { builtinTools } from "../../../src/tools/builtin.js";
import type { AuthorizationRequest, AuthorizationResult } from "../../../src/tools/types.js";

export const passScript = 'node -e "process.exit(0)"';
export const failScript = "node -e \"console.log('1 test failed: adds numbers'); process.exit(1)\"";

/** A temp directory with the given files; `git: true` makes it a repository with one commit. */
export function makeProject(files: Record<string, string>, options: { git?: boolean } = {}): string {
  const root = mkdtempSync(join(tmpdir(), "mercury-completion-"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  if (options.git) {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: root, stdio: "pipe" });
    git("init", "-q", "-b", "main");
    git("config", "user.name", "Mercury Test");
    git("config", "user.email", "test@example.invalid");
    git("config", "commit.gpgsign", "false");
    git("add", "-A");
    git("commit", "-q", "-m", "initial", "--allow-empty");
  }
  return root;
}

export function packageJson(testScript: string): string {
  return JSON.stringify({ name: "demo", version: "1.0.0", scripts: { test: testScript } }, null, 2);
}

/** The real built-in tools, with short command limits for tests. */
export function realTools() {
  return builtinTools({ runCommand: { defaultTimeoutMs: 30_000, killGraceMs: 200 } });
}

/** An authorizer that refuses commands (paths allowed), like `mercury run` without --yes. */
export const refuseCommands = async (request: AuthorizationRequest): Promise<AuthorizationResult> =>
  request.kind === "command"
    ? { allowed: false, rule: "test.refuse", reason: "needs approval; rerun with --yes" }
    : { allowed: true, rule: "test.allow" };

export function notices(events: AgentEvent[]): string[] {
  return events.flatMap((event) => (event.type === "notice" ? [event.message] : []));
}

export function taskEnd(events: AgentEvent[]) {
  const end = events.find((event) => event.type === "task-end");
  if (end?.type !== "task-end") throw new Error("no task-end event");
  return end;
}
