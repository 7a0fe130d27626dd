import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPermissionContext, type PermissionContext } from "../../src/permissions/context.js";
import { decide } from "../../src/permissions/decide.js";
import { makeHome, runCli } from "../helpers/cli.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

/**
 * The daemon runs Telegram and dashboard tasks in MERCURY_HOME/workspace (daemon/run.ts). Mercury's
 * own state around it stays off-limits, but the workspace's inside is the task's to write: before,
 * every write there was denied as `path.mercury-state`, so no Telegram task could save a file.
 */
let sandbox: Sandbox;
let workspace: string;
let context: PermissionContext;
beforeAll(() => {
  sandbox = createSandbox({ withHardLinkedSecret: false });
  workspace = join(sandbox.mercuryHome, "workspace");
  mkdirSync(join(workspace, "notes"), { recursive: true });
  // A link the model made earlier, pointing back into Mercury's state.
  symlinkSync(join(sandbox.mercuryHome, "config.yaml"), join(workspace, "settings-link.yaml"));
  context = createPermissionContext({
    cwd: workspace,
    home: sandbox.home,
    mercuryHome: sandbox.mercuryHome,
    writeRoots: [workspace],
    mode: "ask",
    sessionId: "s",
    userKey: "telegram:1",
    taskId: "t",
  });
});
afterAll(() => sandbox.cleanup());

const command = (text: string) => ({ kind: "command" as const, command: text, cwd: workspace });

describe("MERCURY_HOME/workspace, the daemon's working folder", () => {
  it.each([
    "echo hi > notes.txt",
    "mkdir -p drafts && printf 'a\\n' > drafts/a.md",
    "rm notes/old.txt",
    "cp notes.txt notes/copy.txt",
  ])("judges a write inside it like a write in any project, never as Mercury's state: %s", async (text) => {
    const result = await decide(command(text), context);
    const project = await decide({ kind: "command", command: text, cwd: sandbox.project }, sandbox.context);
    expect(result.rule).not.toBe("path.mercury-state");
    expect({ decision: result.decision, rule: result.rule }).toEqual({
      decision: project.decision,
      rule: project.rule,
    });
    expect(result.decision).not.toBe("deny");
  });

  it.each([
    ["echo x > ../config.yaml", "path.mercury-state"],
    ["echo x > settings-link.yaml", "path.mercury-state"],
    ["rm -rf ../soul", "path.mercury-state"],
    ["rm -rf ../workspace", "path.mercury-state"],
    ["cat ../.env", "path.sensitive"],
    ["cp notes.txt ../mercury.db", "path.sensitive"],
    // Code that names the link through MERCURY_HOME: the link's target is judged, not its name.
    [
      "node -e \"require('fs').writeFileSync(process.env.MERCURY_HOME + '/workspace/settings-link.yaml', 'x')\"",
      "path.mercury-state",
    ],
    [
      "python3 -c \"import os; open(os.environ['MERCURY_HOME'] + '/workspace/settings-link.yaml', 'w')\"",
      "path.mercury-state",
    ],
  ])("keeps Mercury's own state around it refused: %s", async (text, rule) => {
    const result = await decide(command(text), context);
    expect({ decision: result.decision, rule: result.rule }).toEqual({ decision: "deny", rule });
  });

  it("file tools write inside it, never beside it", async () => {
    const inside = await decide(
      { kind: "path", path: join(workspace, "notes", "today.md"), access: "write" },
      context,
    );
    expect(inside.decision).toBe("allow");
    const beside = await decide(
      { kind: "path", path: join(sandbox.mercuryHome, "permissions.json"), access: "write" },
      context,
    );
    expect({ decision: beside.decision, rule: beside.rule }).toEqual({
      decision: "deny",
      rule: "path.mercury-state",
    });
  });

  it("the built binary agrees (policy check: a write inside may be approved, exit 4; beside is denied, exit 1)", async () => {
    const { home, userHome } = makeHome();
    const daemonWorkspace = join(home, "workspace");
    mkdirSync(daemonWorkspace, { recursive: true });
    const run = (text: string) =>
      runCli(["policy", "check", "--json", "--cwd", daemonWorkspace, "--", text], {
        home,
        userHome,
        cwd: daemonWorkspace,
      });
    const inside = await run("echo hi > notes.txt");
    expect({ code: inside.code, stderr: inside.stderr }).toEqual({ code: 4, stderr: "" });
    expect(JSON.parse(inside.stdout)).toMatchObject({ decision: "ask", rule: "command.redirect" });
    const beside = await run("echo x > ../config.yaml");
    expect({ code: beside.code, stderr: beside.stderr }).toEqual({ code: 1, stderr: "" });
    expect(JSON.parse(beside.stdout)).toMatchObject({ decision: "deny", rule: "path.mercury-state" });
    // Code that names a link inside it, through MERCURY_HOME, that leads back to the config file.
    symlinkSync(join(home, "config.yaml"), join(daemonWorkspace, "settings-link.yaml"));
    const linked = await run(
      "node -e \"require('fs').writeFileSync(process.env.MERCURY_HOME + '/workspace/settings-link.yaml', 'x')\"",
    );
    expect({ code: linked.code, stderr: linked.stderr }).toEqual({ code: 1, stderr: "" });
    expect(JSON.parse(linked.stdout)).toMatchObject({ decision: "deny", rule: "path.mercury-state" });
  });
});
