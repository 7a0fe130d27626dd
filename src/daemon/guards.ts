import type { Logger } from "../app/logger.js";
import { errorFields } from "./error-fields.js";

export interface ProcessGuards {
  unhandledRejections(): number;
  remove(): void;
}

/**
 * Process-level failures are logged with context, never ignored. An uncaught exception may leave
 * state inconsistent, so the daemon exits non-zero for the service manager to restart it (running
 * tasks stay 'running' in the ledger and are resumed). A stray rejected promise is logged and
 * counted (status shows the count); the daemon keeps serving.
 */
export function installProcessGuards(logger: Logger, beforeExit: () => void): ProcessGuards {
  let rejections = 0;
  const onUncaught = (error: Error, origin: string) => {
    logger.fatal(
      { ...errorFields(error), origin, pid: process.pid },
      "uncaught exception; exiting for a restart",
    );
    try {
      beforeExit();
    } finally {
      logger.flush();
      process.exit(1);
    }
  };
  const onRejection = (reason: unknown) => {
    rejections += 1;
    logger.error({ ...errorFields(reason), count: rejections }, "unhandled promise rejection");
  };
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onRejection);
  return {
    unhandledRejections: () => rejections,
    remove() {
      process.off("uncaughtException", onUncaught);
      process.off("unhandledRejection", onRejection);
    },
  };
}
