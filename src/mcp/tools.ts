import { z } from "zod";
import { truncateHeadTail } from "../tools/output-limits.js";
import type { AnyTool, ToolDefinition } from "../tools/types.js";
import type { McpConnection, McpToolInfo } from "./connection.js";
import { McpError } from "./errors.js";
import { frameMcpData } from "./result-frame.js";

/** Same limit as run_command's output: results keep their head and tail. */
export const maxMcpResultChars = 30_000;

/** `mcp__<server>__<tool>`, with characters providers refuse replaced and the length capped. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, 64);
}

/** The server's JSON Schema as a zod schema (validation and the schema the model sees). */
function argumentsSchema(info: McpToolInfo): z.ZodType<Record<string, unknown>> {
  try {
    return z.fromJSONSchema({ type: "object", ...info.inputSchema }) as z.ZodType<Record<string, unknown>>;
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

/**
 * One MCP tool as a Mercury tool. Every call asks the permission engine first (kind "mcp"); a
 * refusal, a server error (`isError`), a crash, a timeout or a cancellation is a tool error.
 */
export function mcpTool(connection: McpConnection, info: McpToolInfo): AnyTool {
  const server = connection.name;
  const tool: ToolDefinition<Record<string, unknown>> = {
    name: mcpToolName(server, info.name),
    description:
      `[MCP server ${server}] ${info.description}`.slice(0, 2000) +
      ` Output over ${maxMcpResultChars} characters keeps its beginning and end.`,
    inputSchema: argumentsSchema(info),
    // Unknown effects: treated as a change for the evidence gate unless the server says read-only.
    mutating: !info.readOnly,
    async execute(input, context) {
      // A tool changed since it was approved: config trust was given to the tool as it was, so only
      // a person's answer (which shows the change) lets it run (mcp/definitions.ts).
      const changed = connection.pendingChange(info.name) !== null;
      const decision = await context.authorize({
        kind: "mcp",
        server,
        tool: info.name,
        readOnly: info.readOnly,
        trusted: connection.config.trusted === true && !changed,
        allowedByConfig: !changed && (connection.config.tools?.allow ?? []).includes(info.name),
        arguments: input,
      });
      if (!decision.allowed) return { ok: false, error: `Permission denied: ${decision.reason}` };
      if (changed && decision.byPerson === true) connection.acknowledgeChange(info.name);
      try {
        const result = await connection.call(info.name, input, context.signal);
        const text = truncateHeadTail(result.text, {
          maxChars: maxMcpResultChars,
          hint: "Ask the tool for a narrower result.",
        }).text;
        const framed = frameMcpData(server, info.name, text);
        return result.isError
          ? { ok: false, error: `${info.name} on ${server} reported an error:\n${framed}` }
          : { ok: true, output: framed };
      } catch (error) {
        if (error instanceof McpError) return { ok: false, error: `${error.message} [${error.kind}]` };
        throw error;
      }
    },
  };
  return tool;
}
