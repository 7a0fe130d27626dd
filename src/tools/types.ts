import type { z } from "zod";

/** What a tool asks the permission engine before it acts. */
export type AuthorizationRequest =
  | { kind: "command"; command: string; cwd: string }
  | { kind: "path"; path: string; access: "read" | "write" }
  /** `redirectFrom`: a redirect hop of the fetch that started at that URL. */
  | { kind: "network"; url: string; redirectFrom?: string }
  /**
   * A call to an MCP server's tool. `readOnly` is the server's own annotation and `trusted` the
   * user's config for that server; `allowedByConfig` is the user listing the tool in `tools.allow`.
   */
  | {
      kind: "mcp";
      server: string;
      tool: string;
      readOnly: boolean;
      trusted: boolean;
      allowedByConfig: boolean;
      /** The call's arguments: paths in them are judged like the file tools' (permissions/mcp-arguments.ts). */
      arguments?: unknown;
    };

export type AuthorizationResult =
  /** `resolvedPath`: for path requests, the real path that was checked; act on it, not the raw one. */
  | {
      allowed: true;
      rule: string;
      resolvedPath?: string;
      /**
       * Commands: whether the OS sandbox may give this command network access. True only when the
       * command needs it and a person (or their standing grant) approved it; never by allow-all alone.
       */
      network?: boolean;
      /**
       * A person (or their standing grant) approved this request, not the policy or allow-all: a
       * command's change to what git runs (sandbox/git-guard.ts) is then theirs and is kept.
       */
      byPerson?: boolean;
    }
  | { allowed: false; rule: string; reason: string };

/**
 * Everything a tool may use. Permissions come in through `authorize`, carried explicitly per task
 * (never a global), so a sub-agent or scheduled task can be handed a narrower one.
 */
export interface ToolContext {
  signal: AbortSignal;
  /** The task's working directory (absolute). */
  cwd: string;
  sessionId: string;
  taskId: string;
  /** Whose task this is: "owner" or e.g. "telegram:12345". */
  userKey: string;
  /** MERCURY_HOME, for the trash folder and similar. */
  home: string;
  authorize(request: AuthorizationRequest): Promise<AuthorizationResult>;
  /** Call on any sign of life (streamed command output) so the stall watchdog knows work goes on. */
  reportActivity(detail?: string): void;
  /** Ask the person who owns the task; resolves with their answer. */
  askUser?(question: string, choices?: string[]): Promise<string>;
  /** The names of the tools this task holds (a sub-agent never gets one its parent lacks). */
  availableTools?: readonly string[];
}

export type ToolResult = { ok: true; output: string } | { ok: false; error: string };

export interface ToolDefinition<Input = unknown> {
  name: string;
  /** Shown to the model; states output limits. */
  description: string;
  inputSchema: z.ZodType<Input>;
  /** True when a successful call changes files or the outside world (evidence gate, narration guard). */
  mutating: boolean;
  execute(input: Input, context: ToolContext): Promise<ToolResult>;
}

/** Erases the input type so tools of different inputs live in one registry. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds tools of every input type; each parses its own input with zod.
export type AnyTool = ToolDefinition<any>;
