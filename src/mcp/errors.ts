/** Why an MCP call did not produce a result, typed by cause so callers decide without parsing text. */
export type McpFailureKind = "config" | "server-down" | "timeout" | "cancelled" | "protocol";

export class McpError extends Error {
  override name = "McpError";
  constructor(
    readonly kind: McpFailureKind,
    message: string,
  ) {
    super(message);
  }
}
