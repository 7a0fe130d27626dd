import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/app/logger.js";
import { Redactor } from "../../src/config/secrets.js";
import { formatLogLine } from "../../src/daemon/log-format.js";

describe("file logger", () => {
  it("redacts secrets in messages, objects and nested errors, and keeps nested error messages", () => {
    const directory = mkdtempSync(join(tmpdir(), "mercury-log-"));
    const logger = createLogger(
      directory,
      "info",
      new Redactor({ OPENAI_API_KEY: "sk-test-secret-value-123" }),
    );
    logger.info("plain sk-test-secret-value-123");
    logger.error({ error: new Error("call failed with key sk-test-secret-value-123") }, "provider failed");
    logger.flush();
    const text = readFileSync(join(directory, "mercury.log"), "utf8");
    expect(text).not.toContain("sk-test-secret-value-123");
    expect(text).toContain("call failed with key [REDACTED]");
    expect(text).toContain("plain [REDACTED]");
  });

  it("rotates a log over the size limit when it is opened", () => {
    const directory = mkdtempSync(join(tmpdir(), "mercury-log-"));
    writeFileSync(join(directory, "mercury.log"), "x".repeat(6 * 1024 * 1024));
    const logger = createLogger(directory, "info", new Redactor({}));
    logger.info("fresh line");
    logger.flush();
    expect(statSync(join(directory, "mercury.log.1")).size).toBe(6 * 1024 * 1024);
    expect(readFileSync(join(directory, "mercury.log"), "utf8")).toContain("fresh line");
    expect(statSync(join(directory, "mercury.log")).size).toBeLessThan(1024);
  });

  it("creates no folder and no file until a line is logged", () => {
    const directory = join(mkdtempSync(join(tmpdir(), "mercury-log-")), "logs");
    const logger = createLogger(directory, "info", new Redactor({}));
    logger.debug("below the level");
    expect(existsSync(directory)).toBe(false);
    logger.info("first line");
    expect(readFileSync(join(directory, "mercury.log"), "utf8")).toContain("first line");
  });

  it("writes pino's line shape, with child bindings, that `mercury logs` formats", () => {
    const directory = mkdtempSync(join(tmpdir(), "mercury-log-"));
    const logger = createLogger(
      directory,
      "warn",
      new Redactor({ TELEGRAM_BOT_TOKEN: "123:secret-token-value" }),
    );
    const child = logger.child({ channel: "telegram", token: "123:secret-token-value" });
    child.info({ ignored: true }, "below warn");
    child.warn({ component: "poller", attempt: 2, error: new Error("boom") }, "poll failed");
    logger.error(new Error("bare error"));
    const lines = readFileSync(join(directory, "mercury.log"), "utf8").trim().split("\n");
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0] ?? "{}") as Record<string, unknown>;
    expect(first).toMatchObject({
      level: 40,
      pid: process.pid,
      channel: "telegram",
      token: "[REDACTED]",
      component: "poller",
      attempt: 2,
      msg: "poll failed",
    });
    expect(typeof first.time).toBe("number");
    expect(typeof first.hostname).toBe("string");
    expect(first.error).toMatchObject({ name: "Error", message: "boom" });
    expect(JSON.parse(lines[1] ?? "{}")).toMatchObject({ level: 50, message: "bare error" });
    expect(formatLogLine(lines[0] ?? "", false)).toMatch(/ WARN {2}poller: poll failed .*attempt=2/);
  });

  it("never throws on a value JSON cannot hold (a cycle)", () => {
    const directory = mkdtempSync(join(tmpdir(), "mercury-log-"));
    const logger = createLogger(directory, "info", new Redactor({}));
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    logger.info({ cyclic, big: 10n }, "odd values");
    const line = JSON.parse(readFileSync(join(directory, "mercury.log"), "utf8")) as Record<string, unknown>;
    expect(line).toMatchObject({
      cyclic: { name: "loop", self: "[Circular]" },
      big: "10",
      msg: "odd values",
    });
  });
});
