import { mkdirSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import type { Redactor } from "../config/secrets.js";
import { copyTruncateIfLarge } from "../daemon/log-rotation.js";

export type Logger = pino.Logger;

/**
 * File logger under $MERCURY_HOME/logs. Every string that reaches the log passes the redactor, so a
 * key that slips into an error message is not written to disk.
 */
export function createLogger(
  logsDirectory: string,
  level: string,
  redactor: Redactor,
  fileName = "mercury.log",
): Logger {
  mkdirSync(logsDirectory, { recursive: true });
  const path = join(logsDirectory, fileName);
  // Size-based rotation at open (copy then truncate, so another process appending to it keeps working).
  copyTruncateIfLarge(path);
  const destination = pino.destination({ dest: path, sync: true, mkdir: true });
  return pino(
    {
      level,
      hooks: {
        logMethod(args, method) {
          const cleaned = args.map((argument) => redactValue(argument, redactor));
          method.apply(this, cleaned as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}

function redactValue(value: unknown, redactor: Redactor): unknown {
  if (typeof value === "string") return redactor.redact(value);
  if (value instanceof Error)
    return {
      name: value.name,
      message: redactor.redact(value.message),
      stack: redactor.redact(value.stack ?? ""),
    };
  if (value && typeof value === "object") {
    // Errors nested in a log object would stringify to {}; keep their message and stack.
    const text = JSON.stringify(value, (_key, inner: unknown) =>
      inner instanceof Error ? { name: inner.name, message: inner.message, stack: inner.stack } : inner,
    );
    return JSON.parse(redactor.redact(text)) as unknown;
  }
  return value;
}
