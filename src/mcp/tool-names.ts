import type { McpToolInfo } from "./connection.js";
import { mcpToolName } from "./tools.js";

/**
 * Tool names the MCP specification allows (1–128 of letters, digits, `_`, `-`, `.`). Anything else
 * is refused rather than rewritten: a tool named `*` would share its grant subject (`mcp:<server>/*`)
 * with the whole-server approval, so approving it "always" would approve every tool of the server.
 */
const specToolName = /^[A-Za-z0-9_.-]{1,128}$/;

/** Tools one server may put in front of the model; each is sent with every request. */
export const maxMcpToolsPerServer = 128;
/** Characters of one tool's JSON Schema at most. */
export const maxMcpSchemaChars = 16_000;

/**
 * The tools of one server the model may see: names within the specification, and no two that
 * become the same Mercury name (`read.file` and `read_file` are both `mcp__<server>__read_file`; the
 * model would read one description and the call could reach the other). Both of a clashing pair are
 * left out, so the server cannot choose which one the model gets. Each refusal is reported.
 */
export function usableMcpTools(
  server: string,
  tools: readonly McpToolInfo[],
  warn: (message: string) => void,
): McpToolInfo[] {
  const named = tools.filter((tool) => {
    if (!specToolName.test(tool.name)) {
      warn(
        `MCP server ${server}: tool ${JSON.stringify(tool.name.slice(0, 140))} has a name outside the MCP specification (1–128 of A-Z a-z 0-9 _ - .); left out`,
      );
      return false;
    }
    // Every tool's schema goes with every model request: a huge one would spend the budget.
    const schemaChars = JSON.stringify(tool.inputSchema).length;
    if (schemaChars <= maxMcpSchemaChars) return true;
    warn(
      `MCP server ${server}: tool "${tool.name}" has an argument schema of ${schemaChars} characters (the limit is ${maxMcpSchemaChars}); left out`,
    );
    return false;
  });
  if (named.length > maxMcpToolsPerServer) {
    warn(
      `MCP server ${server}: lists ${named.length} tools; only the first ${maxMcpToolsPerServer} are offered (narrow it with tools.include)`,
    );
    named.length = maxMcpToolsPerServer;
  }
  const count = new Map<string, number>();
  for (const tool of named) {
    const mercuryName = mcpToolName(server, tool.name);
    count.set(mercuryName, (count.get(mercuryName) ?? 0) + 1);
  }
  return named.filter((tool) => {
    const mercuryName = mcpToolName(server, tool.name);
    if ((count.get(mercuryName) ?? 0) === 1) return true;
    warn(
      `MCP server ${server}: tool "${tool.name}" becomes ${mercuryName} like another of its tools; both left out`,
    );
    return false;
  });
}

/**
 * A server's own words (tool descriptions, instructions) without terminal control sequences, C1
 * controls or bidirectional overrides: `mercury mcp tools` prints them next to "asks"/"allowed", and an
 * escape sequence there could redraw that line to say something else.
 */
export function plainServerText(text: string): string {
  let plain = "";
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    const control = (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);
    const bidiOverride = (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
    if (!control && !bidiOverride) plain += character;
  }
  return plain;
}
