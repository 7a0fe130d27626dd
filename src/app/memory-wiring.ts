import { checkBudget } from "../agent/budget.js";
import type { Clock } from "../agent/clock.js";
import type { EventBus } from "../agent/events.js";
import { usableProviderProblem } from "../config/api-keys.js";
import { ConfigError } from "../config/errors.js";
import type { ResolvedConfig } from "../config/schema.js";
import type { MemoryModel } from "../memory/extraction/model.js";
import { embedderFromEnv } from "../memory/search/embedder-config.js";
import { SearchIndex } from "../memory/search/search-index.js";
import { EmbeddingError } from "../memory/search/types.js";
import type { MemoryServiceOptions } from "../memory/service-options.js";
import type { SqliteDatabase } from "../storage/database.js";
import type { UsageStore } from "../storage/usage.js";
import type { Logger } from "./logger.js";

export interface MemoryWiring {
  database: SqliteDatabase;
  /** Extraction and the judge; `memoryModelOver(chain, usage)`, or a lazy one for the CLI. */
  model: MemoryModel;
  bus: EventBus;
  config: ResolvedConfig;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  usage: UsageStore;
  logger: Logger;
  /** A person is waiting (the memory commands): a hung embedding server is given up on quickly. */
  interactive?: boolean;
}

/**
 * The memory service's options and the search index under it, from the application's parts. No
 * service class here: `memory.ts` builds the full MemoryService for the app, `memory-cli.ts` the
 * light MemoryCore for `memory add|search` (which never forget, so no backups are listed here).
 */
export function memoryServiceOptions(wiring: MemoryWiring): {
  options: MemoryServiceOptions;
  index: SearchIndex;
} {
  let embedder: ReturnType<typeof embedderFromEnv>;
  try {
    embedder = embedderFromEnv(wiring.env, { interactive: wiring.interactive === true });
  } catch (error) {
    if (error instanceof EmbeddingError) throw new ConfigError(error.message);
    throw error;
  }
  const index = new SearchIndex(wiring.database, embedder ? { embedder } : {});
  const options: MemoryServiceOptions = {
    database: wiring.database,
    index,
    clock: wiring.clock,
    model: wiring.model,
    // Whenever a model is configured it judges consolidation; the rules only decide without one.
    // A chain none of whose providers has its key can never judge (consolidation would find that
    // out on every add, record a failure and let the rules decide): the rules decide at once.
    judgeWithModel:
      wiring.config.chain.length > 0 && usableProviderProblem(wiring.config.chain, wiring.env) === null,
    canSpend: () => checkBudget(wiring.config.budget, wiring.usage.today()).ok,
    onReceipt: (receipt) =>
      wiring.bus.emit({
        type: "memory-receipt",
        kind: receipt.kind,
        text: receipt.text,
        userKey: receipt.userKey,
        taskId: "memory",
        sessionId: "",
        at: wiring.clock.now().toISOString(),
      }),
    log: (level, message) => wiring.logger[level]({ component: "memory" }, message),
    ...(embedder
      ? {
          wordIndex: new SearchIndex(wiring.database),
          embedPending: () => index.embedPending({ max: 64 }),
        }
      : {}),
    onNotice: (message) =>
      wiring.bus.emit({
        type: "notice",
        level: "warn",
        message,
        taskId: "memory",
        sessionId: "",
        userKey: "owner",
        at: wiring.clock.now().toISOString(),
      }),
  };
  return { options, index };
}
