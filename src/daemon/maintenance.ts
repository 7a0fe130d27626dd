import type { MercuryApp } from "../app/container.js";
import type { Logger } from "../app/logger.js";
import { errorFields } from "./error-fields.js";

/** How often the daemon tends memory: tier decay, the extraction queue (retries), pending vectors. */
export const maintenanceIntervalMs = 10 * 60_000;

/**
 * One maintenance pass. Decay is idempotent; extraction jobs that could not run earlier (provider
 * down, budget short) are retried here, so a queued job is never dropped. Failures are logged with
 * their cause and the next pass tries again.
 */
export async function runMaintenance(app: MercuryApp, logger: Logger, signal: AbortSignal): Promise<void> {
  const memory = app.memory;
  if (!memory) return;
  try {
    const decay = memory.runDecay(app.clock.now());
    logger.info({ component: "maintenance", decay }, "memory tiers updated");
  } catch (error) {
    logger.error({ component: "maintenance", ...errorFields(error) }, "memory decay failed");
  }
  try {
    const summary = await memory.runPendingExtractions(signal);
    logger.info({ component: "maintenance", summary }, "extraction queue run");
  } catch (error) {
    logger.error(
      { component: "maintenance", ...errorFields(error) },
      "extraction queue run failed; retried next pass",
    );
  }
}

/** Starts the periodic pass (first one right away); returns a stop function. */
export function startMaintenance(
  app: MercuryApp,
  logger: Logger,
  intervalMs = maintenanceIntervalMs,
): () => void {
  const controller = new AbortController();
  let running: Promise<void> | null = null;
  const pass = () => {
    if (running) return;
    running = runMaintenance(app, logger, controller.signal).finally(() => {
      running = null;
    });
  };
  pass();
  const timer = setInterval(pass, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    controller.abort(new Error("daemon stopping"));
  };
}
