import { appendFileSync, mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Redactor } from "../config/secrets.js";
import { copyTruncateIfLarge } from "../daemon/log-rotation.js";

export const logLevels = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
export type LogLevelName = keyof typeof logLevels;

/** `logger.info("message")` or `logger.info({ fields }, "message")`, like pino. */
export interface LogMethod {
  (fields: object, message?: string): void;
  (message: string): void;
}

export interface Logger {
  trace: LogMethod;
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  fatal: LogMethod;
  /** A logger whose every line also carries `bindings`. */
  child(bindings: Record<string, unknown>): Logger;
  /** Lines are appended synchronously; kept so callers can say "everything is on disk" explicitly. */
  flush(): void;
}

/**
 * One log file, shared by a logger and its children. Nothing is created until the first line; each
 * line is appended by path (open, write, close), so a rotation by rename or copy-truncate is followed
 * at once and no descriptor outlives a test or a command.
 */
class LogFile {
  private prepared = false;

  constructor(
    private readonly directory: string,
    private readonly path: string,
  ) {}

  write(line: string): void {
    if (!this.prepared) {
      mkdirSync(this.directory, { recursive: true });
      // Size-based rotation at open (copy then truncate, so another process appending to it keeps working).
      copyTruncateIfLarge(this.path);
      this.prepared = true;
    }
    appendFileSync(this.path, line);
  }
}

/**
 * File logger under $MERCURY_HOME/logs: one JSON object per line in pino's shape (`level` number,
 * `time` in epoch ms, `pid`, `hostname`, the fields, `msg`), which `mercury logs` formats. Written by
 * hand rather than with pino so that a command pays nothing to load it and the file is not even opened
 * until something is logged (see docs/DECISIONS.md "Start-up"). Every string that reaches the log
 * passes the redactor, so a key that slips into an error message is not written to disk.
 */
export function createLogger(
  logsDirectory: string,
  level: string,
  redactor: Redactor,
  fileName = "mercury.log",
): Logger {
  const threshold = level === "silent" ? Number.POSITIVE_INFINITY : (logLevels[level as LogLevelName] ?? 30);
  const file = new LogFile(logsDirectory, join(logsDirectory, fileName));
  const base = { pid: process.pid, hostname: hostname() };
  return makeLogger(file, threshold, redactor, base);
}

function makeLogger(
  file: LogFile,
  threshold: number,
  redactor: Redactor,
  bindings: Record<string, unknown>,
): Logger {
  const method =
    (levelNumber: number): LogMethod =>
    (first: object | string, message?: string) => {
      if (levelNumber < threshold) return;
      const cleaned = redactValue(first, redactor);
      const fields =
        cleaned && typeof cleaned === "object" && !Array.isArray(cleaned)
          ? (cleaned as Record<string, unknown>)
          : {};
      const text =
        typeof cleaned === "string" ? cleaned : message === undefined ? undefined : redactor.redact(message);
      const record = { level: levelNumber, time: Date.now(), ...bindings, ...fields, msg: text };
      if (text === undefined) delete record.msg;
      file.write(`${safeStringify(record)}\n`);
    };
  return {
    trace: method(logLevels.trace),
    debug: method(logLevels.debug),
    info: method(logLevels.info),
    warn: method(logLevels.warn),
    error: method(logLevels.error),
    fatal: method(logLevels.fatal),
    child: (more) => makeLogger(file, threshold, redactor, { ...bindings, ...redactFields(more, redactor) }),
    flush: () => undefined,
  };
}

function redactFields(fields: Record<string, unknown>, redactor: Redactor): Record<string, unknown> {
  const cleaned = redactValue(fields, redactor);
  return cleaned && typeof cleaned === "object" ? (cleaned as Record<string, unknown>) : {};
}

/** A log line must never throw: a cycle or a BigInt becomes a placeholder instead. */
function safeStringify(record: Record<string, unknown>): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(record, (_key, value: unknown) => {
    if (typeof value === "bigint") return value.toString();
    if (value && typeof value === "object") {
      if (seen.has(value)) return "[Circular]";
      seen.add(value);
    }
    return value;
  });
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
    const text = JSON.stringify(value, replacerForErrors(new WeakSet<object>()));
    return text === undefined ? undefined : (JSON.parse(redactor.redact(text)) as unknown);
  }
  return value;
}

function replacerForErrors(seen: WeakSet<object>) {
  return (_key: string, inner: unknown): unknown => {
    if (inner instanceof Error) return { name: inner.name, message: inner.message, stack: inner.stack };
    if (typeof inner === "bigint") return inner.toString();
    if (inner && typeof inner === "object") {
      if (seen.has(inner)) return "[Circular]";
      seen.add(inner);
    }
    return inner;
  };
}
