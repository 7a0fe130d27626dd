import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/app/logger.js";
import { Redactor } from "../../src/config/secrets.js";

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
});
