import { platform } from "node:os";
import type { Clock } from "../agent/clock.js";
import { systemClock } from "../agent/clock.js";
import { EventBus } from "../agent/events.js";
import { Agent } from "../agent/runtime.js";
import type { ConfigFlags } from "../config/load.js";
import type { homePaths } from "../config/paths.js";
import type { ResolvedConfig } from "../config/schema.js";
import type { Redactor } from "../config/secrets.js";
import { loadSettings } from "../config/settings.js";
import { ProviderChain } from "../model/chain.js";
import { buildProviders, defaultModelFactory, type ModelFactory } from "../model/providers.js";
import { ApprovalBroker } from "../permissions/approvals.js";
import { AuditLog } from "../permissions/audit.js";
import { assembleSystemPrompt, readSoul } from "../soul/soul.js";
import { openDatabase, type SqliteDatabase } from "../storage/database.js";
import { builtinTools } from "../tools/builtin.js";
import type { AnyTool } from "../tools/types.js";
import { logEvents } from "./event-log.js";
import { createLogger, type Logger } from "./logger.js";

export interface AppOptions {
  env?: NodeJS.ProcessEnv;
  flags?: ConfigFlags;
  modelFactory?: ModelFactory;
  tools?: AnyTool[];
  clock?: Clock;
  /** ":memory:" for tests. */
  databasePath?: string;
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
  close(): void;
}

export function createApp(options: AppOptions = {}): MercuryApp {
  const { home, paths, env, config, redactor } = loadSettings(options);
  const logger = createLogger(paths.logs, config.log.level, redactor);
  const database = openDatabase(options.databasePath ?? paths.database);
  const bus = new EventBus();
  logEvents(bus, logger);
  const chain = new ProviderChain(
    buildProviders(config.chain, env, options.modelFactory ?? defaultModelFactory),
    {
      retry: config.retry,
      prices: config.prices,
    },
  );
  const tools = options.tools ?? builtinTools();
  const clock = options.clock ?? systemClock;
  const approvals = new ApprovalBroker({ database, clock, onEvent: (event) => bus.emit(event) });
  const audit = new AuditLog(database, clock);
  const agent = new Agent(
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
    },
    {
      systemPrompt: async ({ cwd, toolNames }) =>
        assembleSystemPrompt(readSoul(paths.soul), {
          cwd,
          platform: platform(),
          date: clock.now().toISOString().slice(0, 10),
          toolNames,
        }),
    },
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
    close() {
      database.close();
      logger.flush();
    },
  };
}
