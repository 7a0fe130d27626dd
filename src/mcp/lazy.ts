import type { Clock } from "../agent/clock.js";
import type { ResolvedMcpConfig } from "../config/mcp-schema.js";
import type { SqliteDatabase } from "../storage/database.js";
import type { AnyTool } from "../tools/types.js";
import type { McpConnectionOptions } from "./connection.js";
import type { McpManager } from "./manager.js";
import type { McpSandboxOptions } from "./sandbox.js";

export interface LazyMcpOptions extends Omit<McpConnectionOptions, "wrapLaunch" | "definitions"> {
  /** Stdio servers run inside the OS sandbox built from these (mcp/sandbox.ts). */
  sandbox: McpSandboxOptions;
  /** Where tool definitions are kept across restarts, tying standing approvals to them (definitions.ts). */
  store?: { database: SqliteDatabase; clock: Clock };
}

/** True when config.yaml has at least one MCP server that is not switched off. */
export function hasEnabledMcpServers(config: ResolvedMcpConfig): boolean {
  return Object.values(config.servers).some((server) => server.enabled !== false);
}

/**
 * The MCP manager of the application, loaded (with the sandbox wrapper and the connection code) when
 * the first task asks for its servers: a command that runs no task, or an app with no MCP server
 * configured (compose.ts then builds none of this), never loads it. `ready()` is awaited before the
 * task's tools are listed, so the servers' tools and instructions reach the first request as before.
 */
export class LazyMcp {
  private manager: McpManager | null = null;
  private loading: Promise<McpManager> | null = null;

  constructor(
    private readonly config: ResolvedMcpConfig,
    private readonly options: LazyMcpOptions,
  ) {}

  load(): Promise<McpManager> {
    this.loading ??= Promise.all([
      import("./manager.js"),
      import("./sandbox.js"),
      import("./definitions.js"),
    ]).then(([{ McpManager }, { mcpSandboxWrapper }, { McpDefinitionStore }]) => {
      const { sandbox, store, ...connection } = this.options;
      this.manager = new McpManager(this.config, {
        ...connection,
        wrapLaunch: mcpSandboxWrapper(sandbox),
        ...(store ? { definitions: new McpDefinitionStore(store.database, store.clock) } : {}),
      });
      return this.manager;
    });
    return this.loading;
  }

  /** Starts every server once (see McpManager.ready). */
  async ready(): Promise<void> {
    await (await this.load()).ready();
  }

  /** The tools of the servers that are up now; none before the first `ready()`. */
  tools(): AnyTool[] {
    return this.manager?.tools() ?? [];
  }

  instructionsSection(): string {
    return this.manager?.instructionsSection() ?? "";
  }

  /** Stops the servers, when they were ever loaded. */
  async close(): Promise<void> {
    if (this.loading) await (await this.loading).close();
  }
}
