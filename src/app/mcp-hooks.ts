import type { AgentHooks } from "../agent/runtime.js";
import type { McpManager } from "../mcp/manager.js";

/** What the hooks use of the MCP servers: McpManager, or LazyMcp (mcp/lazy.ts) which loads it first. */
export type McpForTasks = Pick<McpManager, "ready" | "tools" | "instructionsSection">;

/**
 * Adds MCP to the agent's hooks: the servers are started on the first task (not for commands that
 * never run one), their tools join each task's tools and their instructions the system prompt. The
 * runtime lists a task's tools (awaiting `ready`) before it builds the system prompt.
 */
export function withMcpHooks(mcp: McpForTasks, hooks: AgentHooks): AgentHooks {
  return {
    ...hooks,
    systemPrompt: async (context) => {
      const prompt = await hooks.systemPrompt(context);
      const instructions = mcp.instructionsSection();
      return instructions === "" ? prompt : `${prompt}\n\n${instructions}`;
    },
    taskTools: async (base, task) => {
      await mcp.ready();
      const tools = hooks.taskTools ? await hooks.taskTools(base, task) : [...base];
      return [...tools, ...mcp.tools()];
    },
  };
}
