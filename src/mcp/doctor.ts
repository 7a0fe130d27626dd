import type { ResolvedMcpConfig } from "../config/mcp-schema.js";
import { userHomeOf } from "../sandbox/workspace.js";
import { McpManager } from "./manager.js";
import { mcpSandboxWrapper } from "./sandbox.js";

export interface McpCheck {
  name: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix?: string;
}

/** Doctor: starts each configured MCP server once and reports the ones that do not start. */
export async function checkMcpServers(
  config: ResolvedMcpConfig,
  env: NodeJS.ProcessEnv,
  home: string,
  /** Config `sandbox.unfilteredNetwork`: the servers start the way the daemon would start them. */
  allowUnfilteredNetwork = false,
): Promise<McpCheck[]> {
  const manager = new McpManager(config, {
    env,
    home,
    startupTimeoutMs: 15_000,
    wrapLaunch: mcpSandboxWrapper({ mercuryHome: home, userHome: userHomeOf(env), allowUnfilteredNetwork }),
  });
  try {
    await manager.ready();
    return manager.status().map((server) =>
      server.state === "ready"
        ? {
            name: `mcp ${server.name}`,
            status: "ok",
            detail: `${server.transport}${containment(config, server.name)}, ${server.tools} tool(s)`,
          }
        : {
            name: `mcp ${server.name}`,
            status: "fail",
            detail: server.error ?? server.state,
            fix: `check mcp.servers.${server.name} in config.yaml, then \`mercury mcp test ${server.name}\``,
          },
    );
  } finally {
    await manager.close();
  }
}

/** How a server runs, for the doctor line: a stdio server is sandboxed unless its config opts out. */
function containment(config: ResolvedMcpConfig, name: string): string {
  const server = config.servers[name];
  if (!server || server.url) return "";
  return server.sandbox === false ? ", NOT sandboxed (sandbox: false)" : ", sandboxed";
}
