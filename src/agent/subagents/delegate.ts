import { realpathSync } from "node:fs";
import { resolve, sep } from "node:path";
import { z } from "zod";
import type {
  AnyTool,
  AuthorizationRequest,
  AuthorizationResult,
  ToolContext,
  ToolDefinition,
} from "../../tools/types.js";
import type { Clock } from "../clock.js";
import { describeRun, passed } from "../completion/test-summary.js";
import type { Agent } from "../runtime.js";
import { childTaskId, depthOf, type SubagentLimits, type SubagentRegistry } from "./registry.js";
import { uncheckedPrefix, unfinishedPrefix } from "./unchecked.js";

/** Tools no child ever holds: it cannot schedule, change jobs or speak on a channel. */
export const toolsChildrenNeverGet = new Set([
  "schedule_task",
  "cancel_scheduled_task",
  "list_scheduled_tasks",
  "send_message",
  "telegram_send",
]);
export const delegationTools = new Set(["delegate_task", "list_agents", "stop_agent"]);

export interface ChildIdentity {
  taskId: string;
  sessionId: string;
  cwd: string;
  signal: AbortSignal;
  /** "sub-agent child-1 of task …", shown with every approval the child asks for. */
  label: string;
}

export interface DelegateDeps {
  agent: () => Agent;
  /** Every tool of the app; a child gets the ones its parent holds and asked for, minus the forbidden. */
  tools: () => readonly AnyTool[];
  registry: SubagentRegistry;
  limits: SubagentLimits;
  clock: Clock;
  /** The child's permission check, derived from the parent's context: it can only narrow. */
  childAuthorizer(
    parent: ToolContext,
    child: ChildIdentity,
  ): (request: AuthorizationRequest) => Promise<AuthorizationResult>;
  /** Usage of a task and its descendants (task ids by prefix). */
  usageOf(taskIdPrefix: string): { inputTokens: number; outputTokens: number; costUsd: number };
}

const delegateInput = z
  .object({
    task: z.string().min(1).max(8000).describe("what the child agent should do, self-contained"),
    tools: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "tool names the child may use (a subset of yours); all of yours that children may hold otherwise",
      ),
    cwd: z
      .string()
      .optional()
      .describe("a subfolder of your working directory for the child; yours otherwise"),
  })
  .strict();

function realOrResolved(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

/** delegate_task: a child agent with a subset of the parent's tools, roots and budget. */
export function delegateTaskTool(deps: DelegateDeps): ToolDefinition<z.infer<typeof delegateInput>> {
  return {
    name: "delegate_task",
    description:
      "Start a sub-agent on a self-contained task in your working directory (or a subfolder) and wait for its result: outcome, text, files changed, verification, usage. It holds only tools you hold (never scheduling or messaging), only your permissions (what needs approval is asked of the user, labelled as the sub-agent's), and shares your budget. At most a few per task.",
    inputSchema: delegateInput,
    mutating: true,
    async execute(input, context) {
      const { limits, registry } = deps;
      const depth = depthOf(context.taskId);
      if (depth >= limits.maxDepth)
        return {
          ok: false,
          error: `delegation depth limit reached (${limits.maxDepth}); do this task yourself`,
        };
      const held = context.availableTools;
      if (!held)
        return { ok: false, error: "cannot tell which tools this task holds; a sub-agent cannot be started" };
      const requested = input.tools ?? held.filter((name) => !toolsChildrenNeverGet.has(name));
      const lacking = requested.filter((name) => !held.includes(name));
      if (lacking.length > 0)
        return {
          ok: false,
          error: `a sub-agent can only hold tools you hold; you lack: ${lacking.join(", ")}`,
        };
      const forbidden = requested.filter((name) => toolsChildrenNeverGet.has(name));
      if (forbidden.length > 0)
        return {
          ok: false,
          error: `sub-agents never get ${forbidden.join(", ")} (no scheduling, no messages to channels)`,
        };
      const childCanDelegate = depth + 1 < limits.maxDepth;
      const childTools = deps
        .tools()
        .filter(
          (tool) => requested.includes(tool.name) && (childCanDelegate || !delegationTools.has(tool.name)),
        );
      const parentRoot = realOrResolved(context.cwd);
      const cwd = realOrResolved(resolve(context.cwd, input.cwd ?? "."));
      if (cwd !== parentRoot && !cwd.startsWith(parentRoot.endsWith(sep) ? parentRoot : parentRoot + sep))
        return {
          ok: false,
          error: `the sub-agent's folder must be inside ${parentRoot}; "${input.cwd}" is not`,
        };
      const index = registry.reserve(context.taskId, limits.maxChildrenPerParent);
      if (index === null)
        return {
          ok: false,
          error: `at most ${limits.maxChildrenPerParent} sub-agents per task; do the rest yourself`,
        };
      const id = childTaskId(context.taskId, index);
      const controller = new AbortController();
      // Stopping the parent stops the child (and, through the child's signal, its own children).
      const onAbort = () => controller.abort(context.signal.reason);
      if (context.signal.aborted) onAbort();
      else context.signal.addEventListener("abort", onAbort, { once: true });
      const entry = {
        id,
        parentTaskId: context.taskId,
        userKey: context.userKey,
        task: input.task,
        cwd,
        depth: depth + 1,
        status: "waiting" as const,
        startedAt: deps.clock.now().toISOString(),
        controller,
      };
      registry.add(entry);
      const label = `sub-agent child-${index} of task ${context.taskId}`;
      try {
        await registry.acquire(entry, limits.maxConcurrent, controller.signal);
        const parentAsk = context.askUser;
        // The parent waits on its child: with no sign of life of its own, its stall watchdog fired
        // first (it last saw activity before the child started) and paused the parent with a bare
        // "stalled: no activity", the hung child unnamed and its end never shown. The child's own
        // watchdog bounds the wait (a hung child pauses, and its result says so), so while the child
        // runs the parent counts as working on it.
        const keepParentAlive = setInterval(() => context.reportActivity(`${id} working`), 250);
        keepParentAlive.unref();
        const report = await deps
          .agent()
          .run({
            taskId: id,
            sessionId: id,
            userKey: context.userKey,
            channel: "subagent",
            input: `[${label}; report your result plainly] ${input.task}`,
            cwd,
            signal: controller.signal,
            tools: childTools,
            authorizerFor: (identity) =>
              deps.childAuthorizer(context, {
                taskId: id,
                sessionId: identity.sessionId,
                cwd,
                signal: identity.signal,
                label,
              }),
            ...(parentAsk
              ? {
                  askUser: (question: string, choices?: string[]) =>
                    parentAsk(`[${label}] ${question}`, choices),
                }
              : {}),
          })
          .finally(() => clearInterval(keepParentAlive));
        registry.finish(id, report.outcome);
        const result = {
          agentId: id,
          outcome: report.outcome,
          endCause: report.endCause,
          text: report.text,
          ...(report.reason ? { reason: report.reason } : {}),
          filesChanged: report.filesChanged,
          verification: report.verification,
          // Failed calls (a refused check, an interrupted command) are facts beside the child's words.
          ...(report.toolErrors.length > 0 ? { toolErrors: report.toolErrors } : {}),
          usage: deps.usageOf(id),
        };
        // The child's own words are not its result: a child whose last check failed did not succeed,
        // whatever its text says (a "responded" child can have run a failing suite and claimed a pass),
        // nor did one whose check never ran (refused): its gate's note says so beside its text.
        const lastCheck = report.verification.at(-1);
        const checksFailed = lastCheck !== undefined && !passed(lastCheck);
        const unverified = report.outcome === "responded" && report.reason !== undefined;
        const succeeded =
          (report.outcome === "completed" || report.outcome === "responded") && !checksFailed && !unverified;
        if (succeeded) return { ok: true, output: JSON.stringify(result) };
        // A child that failed, paused or was stopped did not do what it was asked, whatever the
        // parent then says of it: the parent's evidence keeps that (see unchecked.ts).
        const how = checksFailed
          ? `${report.outcome}, but its last verification \`${lastCheck.command}\` ${lastCheck.exitCode === null ? "did not finish" : describeRun(lastCheck)}`
          : unverified
            ? `${report.outcome}, but ${report.reason}`
            : report.outcome;
        const prefix = checksFailed || unverified ? uncheckedPrefix : unfinishedPrefix;
        return { ok: false, error: `${prefix}sub-agent ${how}: ${JSON.stringify(result)}` };
      } catch (error) {
        const outcome = controller.signal.aborted ? "cancelled" : "failed";
        registry.finish(id, outcome);
        // Marked unfinished, so the parent's evidence keeps it (a bare error was no claim at all).
        const reason = `${id} ended: ${error instanceof Error ? error.message : String(error)}`;
        return { ok: false, error: `${unfinishedPrefix}sub-agent ${outcome}: ${JSON.stringify({ reason })}` };
      } finally {
        context.signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

/** list_agents and stop_agent: the user's sub-agents in this process. */
export function agentControlTools(registry: SubagentRegistry): AnyTool[] {
  const list: ToolDefinition<Record<string, never>> = {
    name: "list_agents",
    description: "List the sub-agents started for the user's tasks: id, parent task, task, status.",
    inputSchema: z.object({}).strict(),
    mutating: false,
    async execute(_input, context) {
      const agents = registry.list(context.userKey).map(({ controller: _controller, ...rest }) => rest);
      return { ok: true, output: JSON.stringify({ agents }) };
    },
  };
  const stop: ToolDefinition<{ id: string }> = {
    name: "stop_agent",
    description: "Stop one of the user's running sub-agents (and its own children).",
    inputSchema: z.object({ id: z.string().min(1).describe("agent id from list_agents") }).strict(),
    mutating: false,
    async execute(input, context) {
      const entry = registry.get(input.id);
      if (!entry || entry.userKey !== context.userKey)
        return { ok: false, error: `no sub-agent "${input.id}" of yours; call list_agents` };
      return registry.stop(input.id, `stopped by ${context.userKey}`)
        ? { ok: true, output: `stopped ${input.id}` }
        : { ok: false, error: `sub-agent ${input.id} is not running (${entry.status})` };
    },
  };
  return [list, stop];
}
