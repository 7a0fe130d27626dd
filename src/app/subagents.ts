import type { Clock } from "../agent/clock.js";
import type { Agent } from "../agent/runtime.js";
import { agentControlTools, type ChildIdentity, delegateTaskTool } from "../agent/subagents/delegate.js";
import { defaultSubagentLimits, type SubagentLimits, SubagentRegistry } from "../agent/subagents/registry.js";
import type { ResolvedConfig } from "../config/schema.js";
import type { ApprovalBroker } from "../permissions/approvals.js";
import type { AuditLog } from "../permissions/audit.js";
import { createPermissionContext, deriveChildContext } from "../permissions/context.js";
import { usageWithPrefix } from "../scheduler/usage.js";
import type { SqliteDatabase } from "../storage/database.js";
import type { AnyTool, AuthorizationRequest, AuthorizationResult, ToolContext } from "../tools/types.js";

export interface SubagentWiring {
  database: SqliteDatabase;
  clock: Clock;
  config: ResolvedConfig;
  env: NodeJS.ProcessEnv;
  mercuryHome: string;
  userHome: string;
  approvals: ApprovalBroker;
  audit: AuditLog;
}

/**
 * A child's permission check. Its context is derived from the parent's (roots intersected, the
 * child's folder its only write root, allow-all and session grants dropped, "refuse" when the
 * parent has nobody to ask), approvals are labelled with the child and its parent task, and when
 * the parent cannot ask (a scheduled run) the parent's own check must allow it too — so a child
 * never holds what its parent lacks, including a scheduled job's narrower profile.
 */
export function childAuthorizer(
  wiring: SubagentWiring,
  parent: ToolContext,
  child: ChildIdentity,
): (request: AuthorizationRequest) => Promise<AuthorizationResult> {
  const mode = parent.askUser ? "ask" : "refuse";
  const parentContext = createPermissionContext({
    cwd: parent.cwd,
    home: wiring.userHome,
    mercuryHome: wiring.mercuryHome,
    writeRoots: [parent.cwd, ...wiring.config.permissions.writeRoots],
    readRoots: wiring.config.permissions.readRoots,
    mode,
    sessionId: parent.sessionId,
    userKey: parent.userKey,
    taskId: parent.taskId,
    env: wiring.env,
  });
  const context = deriveChildContext(parentContext, {
    taskId: child.taskId,
    sessionId: child.sessionId,
    cwd: child.cwd,
    writeRoots: [child.cwd],
    mode,
  });
  // The same broker, with the child named in every question it asks; filed under the parent's task
  // so it reaches the chat the parent came from (a Telegram chat knows the parent, not the child).
  const labelled: ApprovalBroker = Object.create(wiring.approvals);
  labelled.request = (args) =>
    wiring.approvals.request({ ...args, taskId: parent.taskId, summary: `[${child.label}] ${args.summary}` });
  // The decision engine loads with the first request (see app/authorization.ts).
  let own: Promise<(request: AuthorizationRequest) => Promise<AuthorizationResult>> | undefined;
  const build = async () => {
    const { createAuthorizer } = await import("../permissions/authorizer.js");
    return createAuthorizer({
      context,
      broker: labelled,
      audit: wiring.audit,
      clock: wiring.clock,
      signal: child.signal,
    });
  };
  return async (request) => {
    own ??= build();
    const decided = await (await own)(request);
    if (!decided.allowed || mode === "ask") return decided;
    const parentDecision = await parent.authorize(request);
    return parentDecision.allowed ? decided : parentDecision;
  };
}

/** delegate_task, list_agents, stop_agent over one registry; `agent` is read lazily (it holds these tools). */
export function subagentTools(
  wiring: SubagentWiring,
  agent: () => Agent,
  allTools: () => readonly AnyTool[],
  limits: SubagentLimits = defaultSubagentLimits,
): { tools: AnyTool[]; registry: SubagentRegistry } {
  const registry = new SubagentRegistry();
  const delegate = delegateTaskTool({
    agent,
    tools: allTools,
    registry,
    limits,
    clock: wiring.clock,
    childAuthorizer: (parent, child) => childAuthorizer(wiring, parent, child),
    usageOf: (prefix) => {
      const sum = usageWithPrefix(wiring.database, prefix);
      return { inputTokens: sum.inputTokens, outputTokens: sum.outputTokens, costUsd: sum.costUsd };
    },
  });
  return { tools: [delegate, ...agentControlTools(registry)], registry };
}
