import { z } from "zod";

/** A server name becomes part of tool names (`mcp__<server>__<tool>`) and a folder name. */
export const mcpServerNamePattern = /^[a-z0-9][a-z0-9-]{0,31}$/;

export const mcpServerSchema = z
  .object({
    /** stdio: the program and its arguments. */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    /** Extra environment for a stdio server; `${NAME}` takes NAME from the environment or `.env`. */
    env: z.record(z.string(), z.string()).optional(),
    /** Streamable HTTP: the endpoint. */
    url: z.url().optional(),
    /** HTTP headers; `${NAME}` takes NAME from the environment or `.env` (secrets stay out of config). */
    headers: z.record(z.string(), z.string()).optional(),
    tools: z
      .object({
        include: z.array(z.string()).optional(),
        exclude: z.array(z.string()).optional(),
        /** Tools the user allows without asking (their own decision, recorded in config). */
        allow: z.array(z.string()).optional(),
      })
      .strict()
      .optional(),
    /** Trusted: tools the server annotates read-only run without asking. Everything else still asks. */
    trusted: z.boolean().optional(),
    /** Per-call time limit (default 60 s); a call over it is a tool error, never a hang. */
    timeoutMs: z.number().int().min(100).max(3_600_000).optional(),
    enabled: z.boolean().optional(),
    /** stdio: start inside the OS sandbox (default true); false runs the server with the user's full rights. */
    sandbox: z.boolean().optional(),
  })
  .strict()
  .refine((server) => (server.command === undefined) !== (server.url === undefined), {
    message: "give either command (a stdio server) or url (a streamable HTTP server), not both",
  });

export type McpServerConfig = z.infer<typeof mcpServerSchema>;

export const mcpConfigSchema = z
  .object({
    servers: z
      .record(
        z.string().regex(mcpServerNamePattern, "server names are 1–32 of a-z, 0-9 and hyphens"),
        mcpServerSchema,
      )
      .optional(),
    /** Tokens of server instructions allowed into the system prompt, all servers together. */
    instructionsTokens: z.number().int().min(0).max(20_000).optional(),
  })
  .strict();

export interface ResolvedMcpConfig {
  servers: Record<string, McpServerConfig>;
  instructionsTokens: number;
}
