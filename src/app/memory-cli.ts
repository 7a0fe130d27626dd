import { systemClock } from "../agent/clock.js";
import { EventBus } from "../agent/events.js";
import { ConfigError } from "../config/errors.js";
import { loadSettingsQuickly } from "../config/quick-settings.js";
import type { ConfigFlags } from "../config/resolve.js";
import type { MemoryModel } from "../memory/extraction/model.js";
import type { MemoryService } from "../memory/service.js";
import { MemoryCore } from "../memory/service-core.js";
import { openCurrentDatabase } from "../storage/connection.js";
import { UsageStore } from "../storage/usage.js";
import { logEvents } from "./event-log.js";
import { createLogger } from "./logger.js";
import { loadEmbeddings, type MemoryWiring, memoryServiceOptions } from "./memory-wiring.js";

export interface MemoryCliOptions {
  env?: NodeJS.ProcessEnv;
  flags?: ConfigFlags;
}

/**
 * The model for the judge, built on first use: the provider chain (and with it the AI SDK) is
 * imported only when consolidation actually asks the model — a search, or an add with no similar
 * memory, never loads it. Same chain, billing and budget as the agent's.
 */
function lazyModel(build: () => Promise<MemoryModel>): MemoryModel {
  let model: Promise<MemoryModel> | undefined;
  return {
    async complete(request) {
      model ??= build();
      return (await model).complete(request);
    },
  };
}

/**
 * What `mercury memory …` needs and nothing more: settings, the database, the memory service with its
 * search index (and the embedder when embeddings are configured). No agent, tools, skills, MCP,
 * scheduler or daemon runtime; the provider chain loads lazily, only if the judge is called.
 */
async function openWiring(options: MemoryCliOptions): Promise<{ wiring: MemoryWiring; close(): void }> {
  // The validated config snapshot when config.yaml is unchanged: no YAML parser, no zod.
  const { paths, env, config, redactor } = await loadSettingsQuickly(options);
  if (!config.memory.enabled) {
    throw new ConfigError(
      "memory is disabled (memory.enabled: false in config.yaml); enable it to use `mercury memory`.",
    );
  }
  const logger = createLogger(paths.logs, config.log.level, redactor);
  // Migrations load only when some are due.
  const database = await openCurrentDatabase(paths.database);
  // What a memory command reports done (`Remembered: …`) is on disk when it says so: every commit
  // syncs the WAL (one fsync; NORMAL would leave it to the checkpoint when the process exits, after
  // the line is printed, and a power cut in between would lose it). Reads sync nothing.
  // `memory add|search` end without closing, so without the checkpoint a close does
  // (memory-fast.ts): the commit that takes the WAL past 256 pages (~1 MB, about eight adds)
  // checkpoints it instead. Every process that opens the database first reads the WAL back (~3 µs
  // a page); SQLite's default of 1,000 pages would make that the larger cost for searches.
  database.exec("PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 256");
  const bus = new EventBus();
  logEvents(bus, logger);
  const clock = systemClock;
  const usage = new UsageStore(database, () => clock.now());
  const model = lazyModel(async () => {
    const [{ ProviderChain }, { buildProviders, defaultModelFactory }, { memoryModelOver }] =
      await Promise.all([
        import("../model/chain.js"),
        import("../model/providers.js"),
        import("./memory.js"),
      ]);
    const chain = new ProviderChain(buildProviders(config.chain, env, defaultModelFactory), {
      retry: config.retry,
      prices: config.prices,
    });
    return memoryModelOver(chain, usage);
  });
  return {
    wiring: { database, model, bus, config, env, clock, usage, logger, interactive: true },
    close() {
      database.close();
      logger.flush();
    },
  };
}

/** The full memory service, for every memory command (edit, forget, why, conflicts, stats, …). */
export async function openMemoryForCli(
  options: MemoryCliOptions = {},
): Promise<{ service: MemoryService; close(): void }> {
  const { wiring, close } = await openWiring(options);
  try {
    const [{ createMemoryService }, embedder] = await Promise.all([
      import("./memory.js"),
      loadEmbeddings(wiring),
    ]);
    return { service: createMemoryService(wiring, embedder).service, close };
  } catch (error) {
    // A bad embeddings setting: the database is closed before the error reaches the person.
    close();
    throw error;
  }
}

/**
 * The light service `memory add|search` run on (remember, search, show): without the modules of
 * edit, forget, why, conflict resolution, decay and stats, which those two never use.
 */
export async function openMemoryCoreForCli(
  options: MemoryCliOptions = {},
): Promise<{ service: MemoryCore; close(): void }> {
  const { wiring, close } = await openWiring(options);
  try {
    return {
      service: new MemoryCore(memoryServiceOptions(wiring, await loadEmbeddings(wiring)).options),
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}
