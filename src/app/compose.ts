import type { Clock } from "../agent/clock.js";
import { systemClock } from "../agent/clock.js";
import { EventBus } from "../agent/events.js";
import { Agent, type AgentHooks } from "../agent/runtime.js";
import type { SubagentRegistry } from "../agent/subagents/registry.js";
import type { ConfigFlags } from "../config/load.js";
import type { homePaths } from "../config/paths.js";
import type { ResolvedConfig } from "../config/schema.js";
import type { Redactor } from "../config/secrets.js";
import type { loadSettings } from "../config/settings.js";
import { hasEnabledMcpServers, LazyMcp } from "../mcp/lazy.js";
import type { MemoryService } from "../memory/service.js";
import { ProviderChain } from "../model/chain.js";
import { buildProviders, defaultModelFactory, type ModelFactory } from "../model/providers.js";
import { ApprovalBroker } from "../permissions/approvals.js";
import { AuditLog } from "../permissions/audit.js";
import { userHomeOf } from "../sandbox/workspace.js";
import { schedulerTools } from "../scheduler/tools.js";
import { LazySkills } from "../skills/lazy.js";
import type { SqliteDatabase } from "../storage/connection.js";
import { UsageStore } from "../storage/usage.js";
import { builtinTools } from "../tools/builtin.js";
import type { AnyTool } from "../tools/types.js";
import { backgroundWork } from "./background.js";
import { logEvents } from "./event-log.js";
import { createLogger, type Logger } from "./logger.js";
import { withMcpHooks } from "./mcp-hooks.js";
import { createMemoryService, memoryModelOver } from "./memory.js";
import { memoryTools } from "./memory-hooks.js";
import { withSkillHooks } from "./skill-hooks.js";
import { subagentTools } from "./subagents.js";
import { taskHooks } from "./task-hooks.js";

export interface AppOptions {
  env?: NodeJS.ProcessEnv;
  flags?: ConfigFlags;
  /** Settings the caller already loaded (from `env` and `flags`), so they are not read twice. */
  settings?: ReturnType<typeof loadSettings>;
  modelFactory?: ModelFactory;
  tools?: AnyTool[];
  clock?: Clock;
  /** ":memory:" for tests. */
  databasePath?: string;
  /** Run memory extraction after each task (chat, daemon). `mercury run` leaves the job queued. */
  extractAfterTasks?: boolean;
}

/** The composition root: everything a command or the daemon needs, built once from config. */
export interface MercuryApp {
  home: string;
  paths: ReturnType<typeof homePaths>;
  env: NodeJS.ProcessEnv;
  config: ResolvedConfig;
  redactor: Redactor;
  logger: Logger;
  database: SqliteDatabase;
  bus: EventBus;
  chain: ProviderChain;
  tools: AnyTool[];
  agent: Agent;
  approvals: ApprovalBroker;
  audit: AuditLog;
  clock: Clock;
  /** The sub-agents started by delegate_task in this process. */
  subagents: SubagentRegistry;
  /** Null when memory is disabled in config. */
  memory: MemoryService | null;
  /** The skill service loads when a skill folder exists or a task proposes or ends (skills/lazy.ts). */
  skills: LazySkills;
  /** Null when no MCP server is configured; otherwise loaded and started with the first task. */
  mcp: LazyMcp | null;
  /**
   * Waits for background work (memory extraction, embeddings) started after tasks; after
   * `timeoutMs` it is aborted — the jobs stay queued in the database and run next time.
   */
  drain(timeoutMs?: number): Promise<void>;
  close(): void;
}

/** With no MCP server configured the hooks are the same as with a manager that has none. */
function withOptionalMcp(mcp: LazyMcp | null, hooks: AgentHooks): AgentHooks {
  return mcp ? withMcpHooks(mcp, hooks) : hooks;
}

/**
 * Builds the application on an open, migrated database (`createApp` in container.ts opens it; `mercury
 * run` opens it without loading the migrations when its schema is current).
 */
export function composeApp(
  database: SqliteDatabase,
  options: AppOptions & { settings: ReturnType<typeof loadSettings> },
): MercuryApp {
  // Settings come from the caller (`createApp` reads them; `mercury run` from the validated
  // snapshot, config/quick-settings.ts): this module never loads the config file's zod schema.
  const { home, paths, env, config, redactor } = options.settings;
  const logger = createLogger(paths.logs, config.log.level, redactor);
  const bus = new EventBus();
  logEvents(bus, logger);
  const chain = new ProviderChain(
    buildProviders(config.chain, env, options.modelFactory ?? defaultModelFactory),
    {
      retry: config.retry,
      prices: config.prices,
    },
  );
  const clock = options.clock ?? systemClock;
  const usage = new UsageStore(database, () => clock.now());
  const memoryParts = config.memory.enabled
    ? createMemoryService({
        database,
        model: memoryModelOver(chain, usage),
        bus,
        config,
        env,
        clock,
        usage,
        logger,
      })
    : null;
  const memory = memoryParts?.service ?? null;
  // Commands are sandboxed around the same home folder the permission engine protects.
  const userHome = userHomeOf(env);
  const tools: AnyTool[] = options.tools ?? [
    ...builtinTools({
      runCommand: {
        sandbox: {
          userHome,
          networkCommands: config.sandbox.networkCommands,
          allowUnfilteredNetwork: config.sandbox.unfilteredNetwork,
        },
      },
    }),
    ...(memory ? memoryTools(memory) : []),
    ...schedulerTools({ database, clock, mercuryHome: home, userHome }),
  ];
  const background = backgroundWork(logger);
  const skills = new LazySkills({
    home,
    userHome,
    database,
    clock,
  });
  const mcp = hasEnabledMcpServers(config.mcp)
    ? new LazyMcp(config.mcp, {
        env,
        home,
        sandbox: {
          mercuryHome: home,
          userHome,
          allowUnfilteredNetwork: config.sandbox.unfilteredNetwork,
        },
        onEvent: (level, message) => logger[level]({ component: "mcp" }, message),
        store: { database, clock },
      })
    : null;
  const approvals = new ApprovalBroker({ database, clock, onEvent: (event) => bus.emit(event) });
  const audit = new AuditLog(database, clock);
  const subagents = subagentTools(
    { database, clock, config, env, mercuryHome: home, userHome, approvals, audit },
    () => agent,
    () => tools,
  );
  if (!options.tools) tools.push(...subagents.tools);
  const agent: Agent = new Agent(
    database,
    chain,
    tools,
    bus,
    {
      home,
      maxSteps: config.agent.maxSteps,
      maxOutputTokens: config.agent.maxOutputTokens,
      contextWindow: config.agent.contextWindow,
      historyReserveTokens: config.agent.historyReserveTokens,
      budget: config.budget,
      stall: config.stall,
      verifyCommand: config.agent.verifyCommand,
    },
    withSkillHooks(
      skills,
      bus,
      clock,
      withOptionalMcp(
        mcp,
        taskHooks({
          soulDirectory: paths.soul,
          config,
          bus,
          clock,
          logger,
          skills,
          memory: memoryParts,
          background,
          extractAfterTasks: options.extractAfterTasks ?? false,
          agent: () => agent,
        }),
      ),
    ),
    clock,
  );
  return {
    home,
    paths,
    env,
    config,
    redactor,
    logger,
    database,
    bus,
    chain,
    tools,
    agent,
    approvals,
    audit,
    clock,
    subagents: subagents.registry,
    memory,
    skills,
    mcp,
    drain: (timeoutMs) => background.drain(timeoutMs),
    close() {
      mcp
        ?.close()
        .catch((error: unknown) => logger.warn({ component: "mcp", error }, "closing MCP servers failed"));
      database.close();
      logger.flush();
    },
  };
}
