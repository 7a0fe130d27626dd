import type { Command } from "commander";

/** `mercury agents list|stop`: the daemon's sub-agents; the work is in agents-action.ts. */
export function registerAgentsCommands(program: Command): void {
  const agents = program.command("agents").description("sub-agents started by delegate_task in the daemon");
  agents
    .command("list")
    .description("every sub-agent: id, parent task, task, status")
    .option("--json", "print one JSON document")
    .action(async (options: { json?: boolean }) => {
      const { agentsAction } = await import("./agents-action.js");
      process.exitCode = await agentsAction("list", options);
    });
  agents
    .command("stop")
    .description("stop a running sub-agent (and its own children)")
    .argument("<id>", "agent id from `mercury agents list`")
    .option("--json", "print one JSON document")
    .action(async (id: string, options: { json?: boolean }) => {
      const { agentsAction } = await import("./agents-action.js");
      process.exitCode = await agentsAction("stop", options, id);
    });
}
