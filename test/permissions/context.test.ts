import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalBroker } from "../../src/permissions/approvals.js";
import { AuditLog } from "../../src/permissions/audit.js";
import { createAuthorizer } from "../../src/permissions/authorizer.js";
import { deriveChildContext, isWithin } from "../../src/permissions/context.js";
import { decide } from "../../src/permissions/decide.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox({ withHardLinkedSecret: false });
});
afterEach(() => sandbox.cleanup());

describe("child contexts can only narrow", () => {
  it("never inherits allow-all and is marked derived", () => {
    const parent = { ...sandbox.context, allowAll: { until: new Date(Date.now() + 60_000) } };
    const child = deriveChildContext(parent, { taskId: "sub-1" });
    expect(child.allowAll).toBeUndefined();
    expect(child.derived).toBe(true);
    expect(child.userKey).toBe(parent.userKey);
  });

  it("cannot widen its write roots beyond the parent's", () => {
    const child = deriveChildContext(sandbox.context, {
      taskId: "sub-1",
      writeRoots: ["/", sandbox.home, sandbox.outside],
    });
    for (const root of child.writeRoots) {
      expect(sandbox.context.writeRoots.some((parentRoot) => isWithin(root, parentRoot))).toBe(true);
    }
    expect(child.writeRoots).toEqual([sandbox.project]);
  });

  it("keeps a narrower requested root as it is", () => {
    const child = deriveChildContext(sandbox.context, {
      taskId: "sub-1",
      writeRoots: [join(sandbox.project, "src")],
    });
    expect(child.writeRoots).toEqual([join(sandbox.project, "src")]);
  });

  it("cannot read where the parent could not", async () => {
    const child = deriveChildContext(sandbox.context, { taskId: "sub-1", readRoots: [sandbox.outside, "/"] });
    expect(child.readRoots.every((root) => isWithin(root, sandbox.project))).toBe(true);
    const decision = await decide(
      { kind: "path", path: join(sandbox.outside, "notes.txt"), access: "read" },
      child,
    );
    expect(decision).toMatchObject({ decision: "ask", rule: "path.outside-roots" });
  });

  it("stays in refuse mode when the parent refuses", () => {
    const parent = { ...sandbox.context, mode: "refuse" as const };
    expect(deriveChildContext(parent, { taskId: "sub", mode: "ask" }).mode).toBe("refuse");
  });

  it("does not use the session's allow-all or session grants, even with the same session id", async () => {
    const database = openMemoryDatabase();
    const broker = new ApprovalBroker({ database });
    const audit = new AuditLog(database, { now: () => new Date() });
    broker.setAllowAll(sandbox.context.sessionId, 30);
    broker.grants.add({
      userKey: "owner",
      sessionId: sandbox.context.sessionId,
      scope: "session",
      kind: "command",
      subject: "npm test",
      createdBy: "owner",
    });
    const parentAuthorize = createAuthorizer({
      context: sandbox.context,
      broker,
      audit,
      sandbox: { available: true, kind: "bubblewrap" },
    });
    expect(
      await parentAuthorize({ kind: "command", command: "touch x", cwd: sandbox.project }),
    ).toMatchObject({ allowed: true });

    const child = deriveChildContext({ ...sandbox.context, mode: "refuse" }, { taskId: "scheduled-1" });
    const childAuthorize = createAuthorizer({
      context: child,
      broker,
      audit,
      sandbox: { available: true, kind: "bubblewrap" },
    });
    const viaAllowAll = await childAuthorize({ kind: "command", command: "touch x", cwd: sandbox.project });
    expect(viaAllowAll).toMatchObject({ allowed: false, rule: "command.not-readonly" });
    const viaSessionGrant = await childAuthorize({
      kind: "command",
      command: "npm test",
      cwd: sandbox.project,
    });
    expect(viaSessionGrant.allowed).toBe(false);
    database.close();
  });

  it("a child of a child is still bounded by the grandparent", () => {
    const child = deriveChildContext(sandbox.context, {
      taskId: "a",
      writeRoots: [join(sandbox.project, "src")],
    });
    const grandchild = deriveChildContext(child, {
      taskId: "b",
      writeRoots: [sandbox.project, sandbox.home],
    });
    expect(grandchild.writeRoots).toEqual([join(sandbox.project, "src")]);
  });
});
