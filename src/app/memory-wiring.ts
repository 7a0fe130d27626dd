import { checkBudget } from "../agent/budget.js";
import type { Clock } from "../agent/clock.js";
import type { EventBus } from "../agent/events.js";
import { usableProviderProblem } from "../config/api-keys.js";
import { ConfigError } from "../config/errors.js";
import type { ResolvedConfig } from "../config/schema.js";
import type { MemoryModel } from "../memory/extraction/model.js";
import { SearchIndexCore } from "../memory/search/search-index-core.js";
import { type Embedder, EmbeddingError } from "../memory/search/types.js";
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

/** Unset or "none" (see embedder-config.ts): word search only, and no embedder module is loaded. */
export function embeddingsConfigured(env: NodeJS.ProcessEnv): boolean {
  const provider = (env.MERCURY_EMBEDDINGS_PROVIDER ?? "").trim().toLowerCase();
  return provider !== "" && provider !== "none";
}

/** A configuration the embedder cannot work with is the user's to fix: a ConfigError says what to set. */
export function embedderOrConfigError(resolve: () => Embedder | undefined): Embedder | undefined {
  try {
    return resolve();
  } catch (error) {
    if (error instanceof EmbeddingError) throw new ConfigError(error.message);
    throw error;
  }
}

/**
 * The configured embedder and the index that stores its vectors, resolved by the caller: the memory
 * commands with `loadEmbeddings`, the app synchronously (memory.ts). Undefined: word search only.
 */
export interface Embeddings {
  embedder: Embedder;
  index(database: SqliteDatabase): SearchIndexCore;
}

/**
 * The configured embeddings, their modules (the HTTP client, the hash fake, the vector store)
 * imported only when MERCURY_EMBEDDINGS_PROVIDER names a provider: memory commands without
 * embeddings never load them (issue 11, memory-command latency).
 */
export async function loadEmbeddings(
  wiring: Pick<MemoryWiring, "env" | "interactive">,
): Promise<Embeddings | undefined> {
  if (!embeddingsConfigured(wiring.env)) return undefined;
  const [{ embedderFromEnv }, { SearchIndex }] = await Promise.all([
    import("../memory/search/embedder-config.js"),
    import("../memory/search/search-index.js"),
  ]);
  const embedder = embedderOrConfigError(() =>
    embedderFromEnv(wiring.env, { interactive: wiring.interactive === true }),
  );
  return embedder ? { embedder, index: (database) => new SearchIndex(database, { embedder }) } : undefined;
}

/**
 * The memory service's options and the search index under it, from the application's parts and the
 * already-resolved embeddings (undefined: word search only). No service class here: `memory.ts`
 * builds the full MemoryService for the app, `memory-cli.ts` the light MemoryCore for
 * `memory add|search` (which never forget, so no backups are listed here).
 */
export function memoryServiceOptions(
  wiring: MemoryWiring,
  embeddings: Embeddings | undefined,
): {
  options: MemoryServiceOptions;
  index: SearchIndexCore;
} {
  const index = embeddings ? embeddings.index(wiring.database) : new SearchIndexCore(wiring.database);
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
    ...(embeddings
      ? {
          wordIndex: new SearchIndexCore(wiring.database),
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
