import { statSync } from "node:fs";
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
async function openWiring(
  options: MemoryCliOptions,
): Promise<{ wiring: MemoryWiring; close(): void; finish(): void }> {
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
  database.exec("PRAGMA synchronous = FULL");
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
  const close = () => {
    database.close();
    logger.flush();
  };
  return {
    wiring: { database, model, bus, config, env, clock, usage, logger, interactive: true },
    close,
    finish() {
      if (walBytes(paths.database) > WAL_KEPT_BYTES) close();
    },
  };
}

/**
 * How much WAL `memory add|search` leave behind for the next process rather than checkpoint
 * (`finish`): about eight adds at 10,000 memories. Every process that opens the database reads the
 * WAL back first (~3 µs a page), and SQLite's own automatic checkpoint cannot bound it here: it
 * checkpoints but only a later write in the same process restarts the WAL, and each new process
 * forgets what was checkpointed, so the WAL would grow for ever and every add would copy all of it.
 */
const WAL_KEPT_BYTES = 1024 * 1024;

function walBytes(databasePath: string): number {
  try {
    return statSync(`${databasePath}-wal`).size;
  } catch (error) {
    // No WAL: nothing to checkpoint.
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return 0;
    throw error;
  }
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
export async function openMemoryCoreForCli(options: MemoryCliOptions = {}): Promise<{
  service: MemoryCore;
  close(): void;
  /**
   * For a process that ends with `process.exit` (memory-fast.ts): closes the database — and so
   * checkpoints the WAL into it when no other process has it open — only once the WAL has grown
   * past about 1 MB; otherwise leaves it for the next process to read back, and the exit skips the
   * checkpoint's fsyncs.
   */
  finish(): void;
}> {
  const { wiring, close, finish } = await openWiring(options);
  try {
    return {
      service: new MemoryCore(memoryServiceOptions(wiring, await loadEmbeddings(wiring)).options),
      close,
      finish,
    };
  } catch (error) {
    close();
    throw error;
  }
}
