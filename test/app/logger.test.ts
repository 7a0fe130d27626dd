import { mkdtempSync, readFileSync } from "node:fs";
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
});
