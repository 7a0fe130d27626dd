import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentControlTools, delegateTaskTool } from "../../src/agent/subagents/delegate.js";
import { SubagentRegistry } from "../../src/agent/subagents/registry.js";
import { childAuthorizer } from "../../src/app/subagents.js";
import type { ResolvedConfig } from "../../src/config/schema.js";
import { ApprovalBroker } from "../../src/permissions/approvals.js";
import { AuditLog } from "../../src/permissions/audit.js";
import { createAuthorizer } from "../../src/permissions/authorizer.js";
import { createPermissionContext } from "../../src/permissions/context.js";
import { usageWithPrefix } from "../../src/scheduler/usage.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import type { AnyTool, ToolDefinition } from "../../src/tools/types.js";
import type { ScriptedReply } from "../fakes/script.js";
import { createHarness } from "../helpers/agent-harness.js";
import { echoTool } from "../helpers/echo-tool.js";

/** Real tools that ask the permission engine before acting. */
const writeTool: ToolDefinition<{ path: string }> = {
  name: "write_somewhere",
  description: "writes a file",
  inputSchema: z.object({ path: z.string() }),
  mutating: true,
  async execute(input, context) {
    const decision = await context.authorize({ kind: "path", path: input.path, access: "write" });
    return decision.allowed ? { ok: true, output: "written" } : { ok: false, error: decision.reason };
  },
};
const commandTool: ToolDefinition<{ command: string }> = {
  name: "run_command",
  description: "runs a command",
  inputSchema: z.object({ command: z.string() }),
  mutating: true,
  async execute(input, context) {
    const decision = await context.authorize({ kind: "command", command: input.command, cwd: context.cwd });
    if (!decision.allowed) return { ok: false, error: decision.reason };
    // The project's suite (see the sub-agent verification test) fails, reported as run_command does.
    if (input.command === "npm test")
      return { ok: false, error: "exit code: 1\nsignal: none\noutput: 1 failing" };
    return { ok: true, output: "ran" };
  },
};
const scheduleTool: ToolDefinition<Record<string, never>> = {
  name: "schedule_task",
  description: "creates a job",
  inputSchema: z.object({}),
  mutating: true,
  async execute() {
    return { ok: true, output: "scheduled" };
  },
};

function setup(
  replies: ScriptedReply[],
  parentTools: string[],
  maxDepth = 1,
  parentMode: "ask" | "refuse" = "refuse",
) {
  const database = openMemoryDatabase();
  const root = mkdtempSync(join(tmpdir(), "mercury-sub-"));
  const workspace = join(root, "work");
  mkdirSync(join(workspace, "sub"), { recursive: true });
  const approvalEvents: { approvalId: string; summary: string; taskId: string }[] = [];
  const broker = new ApprovalBroker({
    database,
    onEvent: (event) => {
      if (event.type === "approval-request") approvalEvents.push(event);
    },
  });
  const audit = new AuditLog(database, { now: () => new Date() });
  const registry = new SubagentRegistry();
  const config = {
    permissions: { writeRoots: [], readRoots: [], allowAllMinutes: 30 },
  } as unknown as ResolvedConfig;
  const wiring = {
    database,
    clock: { now: () => new Date() },
    config,
    env: {},
    mercuryHome: join(root, "m"),
    userHome: root,
    approvals: broker,
    audit,
  };
  const all: AnyTool[] = [echoTool, writeTool, commandTool, scheduleTool];
  let agentRef: ReturnType<typeof createHarness>["agent"] | null = null;
  const delegate = delegateTaskTool({
    agent: () => {
      if (!agentRef) throw new Error("agent not ready");
      return agentRef;
    },
    tools: () => [...all, delegate, ...agentControlTools(registry)],
    registry,
    limits: { maxDepth, maxChildrenPerParent: 2, maxConcurrent: 2 },
    clock: wiring.clock,
    childAuthorizer: (parent, child) => childAuthorizer(wiring, parent, child),
    usageOf: (prefix) => usageWithPrefix(database, prefix),
  });
  const everything = [...all, delegate, ...agentControlTools(registry)];
  const harness = createHarness({
    replies: [replies],
    tools: everything,
    database,
    prices: { "model-0": { input: 1, output: 1 } },
  });
  agentRef = harness.agent;
  const heldByParent = everything.filter((tool) => parentToolNames(parentTools).has(tool.name));
  const run = (signal = new AbortController().signal) =>
    harness.run("parent task", {
      taskId: "parent-1",
      sessionId: "parent-session",
      cwd: workspace,
      signal,
      tools: heldByParent,
      ...(parentMode === "ask" ? { askUser: async () => "yes" } : {}),
      // The parent: a scheduled-run-like context where nothing can be asked ("refuse").
      authorizerFor: (identity) =>
        createAuthorizer({
          context: createPermissionContext({
            cwd: workspace,
            home: root,
            mercuryHome: join(root, "m"),
            mode: parentMode,
            sessionId: identity.sessionId,
            userKey: "owner",
            taskId: identity.taskId,
          }),
          broker,
          audit,
        }),
    });
  return { harness, registry, database, workspace, root, run, broker, approvalEvents };
}

function parentToolNames(names: string[]): Set<string> {
  return new Set(names);
}

function toolResults(harness: ReturnType<typeof createHarness>): string[] {
  return harness.events.flatMap((event) =>
    event.type === "tool-result" && event.taskId === "parent-1" ? [JSON.stringify(event)] : [],
  );
}

describe("sub-agents can only narrow", () => {
  it("a child asking for a tool its parent lacks is refused; scheduling is never given", async () => {
    const s = setup(
      [
        { toolCalls: [{ name: "delegate_task", input: { task: "run things", tools: ["run_command"] } }] },
        { toolCalls: [{ name: "delegate_task", input: { task: "plan", tools: ["schedule_task"] } }] },
        { text: "done" },
      ],
      ["echo", "delegate_task", "schedule_task"],
    );
    await s.run();
    const results = toolResults(s.harness).join("\n");
    expect(results).toContain("you lack: run_command");
    expect(results).toContain("sub-agents never get schedule_task");
    expect(s.registry.list()).toHaveLength(0);
  });

  it("a child's path outside its folder and a command needing approval are refused; it cannot delegate at the depth limit", async () => {
    const s = setup(
      [
        { toolCalls: [{ name: "delegate_task", input: { task: "write files", cwd: "sub" } }] },
        // The child:
        {
          toolCalls: [
            { name: "write_somewhere", input: { path: "../outside.txt" } },
            { name: "run_command", input: { command: "npm install left-pad" } },
            { name: "delegate_task", input: { task: "grandchild" } },
          ],
        },
        { text: "child could not" },
        // The parent again:
        { text: "parent done" },
      ],
      ["echo", "write_somewhere", "run_command", "delegate_task"],
    );
    const report = await s.run();
    const childRequest = s.harness.models[0]?.requests[1];
    const offered = (childRequest?.tools ?? []).map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(["echo", "write_somewhere", "run_command"]));
    expect(offered).not.toContain("delegate_task");
    expect(offered).not.toContain("schedule_task");
    const childResults = s.harness.events.filter(
      (event) => event.type === "tool-result" && event.taskId === "parent-1/child-1",
    );
    const text = JSON.stringify(childResults);

    expect(text).toMatch(/outside\.txt/);
    expect(text).toMatch(/needs approval/);
    expect(text).toMatch(/unknown tool|not available|delegate_task/);
    expect(report.text).toBe("parent done");
    // Approvals the child triggers are labelled with it in the audit log.
    const audit = s.database
      .prepare("SELECT task_id, outcome FROM permission_audit WHERE task_id = 'parent-1/child-1'")
      .all() as { outcome: string }[];
    expect(audit.length).toBeGreaterThanOrEqual(2);
    expect(audit.every((row) => row.outcome === "refused")).toBe(true);
  });

  it("children's usage counts in the parent's, and the result is structured", async () => {
    const s = setup(
      [
        {
          toolCalls: [{ name: "delegate_task", input: { task: "say hi" } }],
          usage: { inputTokens: 10, outputTokens: 1 },
        },
        { text: "hi from the child", usage: { inputTokens: 20, outputTokens: 3 } },
        { text: "parent done", usage: { inputTokens: 5, outputTokens: 1 } },
      ],
      ["echo", "delegate_task"],
    );
    await s.run();
    const result = s.harness.events.find(
      (event) => event.type === "tool-result" && event.taskId === "parent-1",
    );
    const output = JSON.parse(String((result as { output?: string }).output ?? "{}")) as {
      outcome: string;
      text: string;
      usage: { inputTokens: number };
      filesChanged: unknown[];
      verification: unknown[];
    };
    expect(output).toMatchObject({
      outcome: "responded",
      text: "hi from the child",
      filesChanged: [],
      verification: [],
    });
    expect(output.usage.inputTokens).toBe(20);
    expect(usageWithPrefix(s.database, "parent-1")).toMatchObject({ inputTokens: 35, outputTokens: 5 });
  });

  it("stopping the parent stops its children", async () => {
    const s = setup(
      [{ toolCalls: [{ name: "delegate_task", input: { task: "a long job" } }] }, { hang: true }],
      ["echo", "delegate_task"],
    );
    const controller = new AbortController();
    const running = s.run(controller.signal);
    await new Promise<void>((resolve) => {
      const check = () =>
        s.registry.list()[0]?.status === "running" && (s.harness.models[0]?.requests.length ?? 0) >= 2
          ? resolve()
          : setImmediate(check);
      check();
    });
    controller.abort(new Error("stopped by owner"));
    const report = await running;
    expect(report.outcome).toBe("cancelled");
    expect(s.registry.list()[0]?.status).toBe("cancelled");
  });

  it("a child that ran a failing suite and claims success is a failed call for its parent, whatever its text says", async () => {
    const s = setup(
      [
        { toolCalls: [{ name: "delegate_task", input: { task: "run the tests" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { text: "All tests pass." },
        { text: "parent done" },
      ],
      ["echo", "run_command", "delegate_task"],
      1,
      "ask",
    );
    writeFileSync(join(s.workspace, "package.json"), JSON.stringify({ scripts: { test: "exit 1" } }));
    const running = s.run();
    await new Promise<void>((resolve) => {
      const check = () => (s.approvalEvents.length > 0 ? resolve() : setImmediate(check));
      check();
    });
    s.broker.answer(s.approvalEvents[0]?.approvalId ?? "", "once", "owner");
    const report = await running;
    expect(report.outcome).not.toBe("completed");
    expect(report.toolErrors).toContainEqual(
      expect.objectContaining({
        tool: "delegate_task",
        error: expect.stringMatching(
          /^\[unverified\] sub-agent responded, but its last verification `npm test` exited 1/,
        ),
      }),
    );
  });

  it("in an interactive task a child's approval is asked of the user, labelled with the child and parent; the parent's allow-all is not inherited", async () => {
    const s = setup(
      [
        { toolCalls: [{ name: "delegate_task", input: { task: "install it" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "npm install left-pad" } }] },
        { text: "child was denied" },
        { text: "parent done" },
      ],
      ["echo", "run_command", "delegate_task"],
      1,
      "ask",
    );
    // The parent's session runs under allow-all; the child must still ask.
    s.broker.setAllowAll("parent-session", 30);
    const running = s.run();
    await new Promise<void>((resolve) => {
      const check = () => (s.approvalEvents.length > 0 ? resolve() : setImmediate(check));
      check();
    });
    const [asked] = s.approvalEvents;
    expect(asked?.summary).toContain("[sub-agent child-1 of task parent-1]");
    // Filed under the parent's task, so it reaches the chat the parent came from.
    expect(asked?.taskId).toBe("parent-1");
    s.broker.answer(asked?.approvalId ?? "", "deny", "owner");
    const report = await running;
    expect(report.text).toBe("parent done");
    const childResult = s.harness.events.find(
      (event) => event.type === "tool-result" && event.taskId === "parent-1/child-1",
    );
    expect(JSON.stringify(childResult)).toMatch(/denied/);
  });
});
