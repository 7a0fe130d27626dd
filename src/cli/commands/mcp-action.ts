import { ConfigError } from "../../config/errors.js";
import { loadSettings } from "../../config/settings.js";
import { McpManager } from "../../mcp/manager.js";
import { mcpSandboxWrapper } from "../../mcp/sandbox.js";
import { mcpToolName } from "../../mcp/tools.js";
import { decideMcp } from "../../permissions/decide.js";
import { userHomeOf } from "../../sandbox/workspace.js";
import { exitCodes } from "../exit-codes.js";

export async function runMcpAction(
  name: "list" | "test" | "tools",
  server: string | undefined,
  options: { json?: boolean },
): Promise<void> {
  const { paths, env, config } = loadSettings();
  const out = (json: unknown, text: string) =>
    process.stdout.write(options.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
  if (name === "list") {
    const servers = Object.entries(config.mcp.servers).map(([serverName, entry]) => ({
      name: serverName,
      transport: entry.url ? "http" : "stdio",
      target: entry.url ?? [entry.command, ...(entry.args ?? [])].join(" "),
      trusted: entry.trusted === true,
      enabled: entry.enabled !== false,
      allow: entry.tools?.allow ?? [],
      // stdio servers run in the OS sandbox unless opted out; an HTTP server is not a local process.
      sandbox: entry.url ? null : entry.sandbox !== false,
    }));
    out(
      { servers },
      servers.length === 0
        ? "No MCP servers configured (config.yaml: mcp.servers.<name>: { command, args } or { url })."
        : servers
            .map(
              (s) =>
                `${s.name}  ${s.transport}  ${s.target}${s.sandbox === false ? "  NOT sandboxed" : s.sandbox ? "  sandboxed" : ""}${s.trusted ? "  trusted" : ""}${s.enabled ? "" : "  disabled"}`,
            )
            .join("\n"),
    );
    return;
  }
  const entry = server ? config.mcp.servers[server] : undefined;
  if (!server || !entry) {
    throw new ConfigError(
      `no MCP server "${server ?? ""}" in config.yaml; configured: ${Object.keys(config.mcp.servers).join(", ") || "none"}`,
    );
  }
  const events: string[] = [];
  const manager = new McpManager(
    { servers: { [server]: { ...entry, enabled: true } }, instructionsTokens: config.mcp.instructionsTokens },
    {
      env,
      home: paths.home,
      wrapLaunch: mcpSandboxWrapper({
        mercuryHome: paths.home,
        userHome: userHomeOf(env),
        allowUnfilteredNetwork: config.sandbox.unfilteredNetwork,
      }),
      onEvent: (_level, message) => events.push(message),
    },
  );
  try {
    await manager.ready();
    const connection = manager.connections[0];
    const status = manager.status()[0];
    if (!connection || status?.state !== "ready") {
      out(
        { server, ok: false, error: status?.error ?? events.join("; ") },
        `${server}: does not start: ${status?.error ?? events.join("; ")}`,
      );
      process.exitCode = exitCodes.failure;
      return;
    }
    const tools = connection.tools().map((tool) => {
      const decision = decideMcp({
        kind: "mcp",
        server,
        tool: tool.name,
        readOnly: tool.readOnly,
        trusted: entry.trusted === true,
        allowedByConfig: (entry.tools?.allow ?? []).includes(tool.name),
      });
      return {
        name: mcpToolName(server, tool.name),
        tool: tool.name,
        description: tool.description,
        readOnly: tool.readOnly,
        decision: decision.decision,
        rule: decision.rule,
        inputSchema: tool.inputSchema,
      };
    });
    if (name === "test") {
      out(
        { server, ok: true, tools: tools.length, instructions: connection.instructions() ?? null },
        `${server}: started, ${tools.length} tool(s)`,
      );
      return;
    }
    out(
      { server, tools },
      tools
        .map(
          (tool) =>
            `${tool.name}  ${tool.decision === "allow" ? "allowed" : "asks"} (${tool.rule})${tool.readOnly ? "  read-only" : ""}  ${tool.description}`,
        )
        .join("\n"),
    );
  } finally {
    await manager.close();
  }
}
