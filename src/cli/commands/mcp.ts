import type { Command } from "commander";

/** `mercury mcp list|test|tools`: declared here, the work is in mcp-action.ts. */
export function registerMcpCommands(program: Command): void {
  const run =
    (name: "list" | "test" | "tools") =>
    async (...args: unknown[]) => {
      const { runMcpAction } = await import("./mcp-action.js");
      const command = args[args.length - 1] as Command;
      const server = typeof args[0] === "string" ? args[0] : undefined;
      await runMcpAction(name, server, command.opts<{ json?: boolean }>());
    };
  const mcp = program.command("mcp").description("MCP servers (config.yaml mcp.servers): list, test, tools");
  mcp
    .command("list")
    .description("configured servers (not started)")
    .option("--json", "print one JSON document")
    .action(run("list"));
  mcp
    .command("test")
    .description("start a server, list its tools, stop it; exit 1 when it does not start")
    .argument("<server>")
    .option("--json", "print one JSON document")
    .action(run("test"));
  mcp
    .command("tools")
    .description("a server's tools as the model sees them, and whether a call asks or is allowed")
    .argument("<server>")
    .option("--json", "print one JSON document")
    .action(run("tools"));
}
