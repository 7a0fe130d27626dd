import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  dotEnvModeProblem,
  environmentWithDotEnv,
  parseDotEnv,
  Redactor,
  writeDotEnv,
} from "../../src/config/secrets.js";

describe("secrets", () => {
  it("writes .env with mode 0600 and merges updates", () => {
    const path = join(mkdtempSync(join(tmpdir(), "mercury-env-")), ".env");
    writeDotEnv(path, { OPENAI_API_KEY: "sk-first-key-1234567890" });
    writeDotEnv(path, { TELEGRAM_BOT_TOKEN: "123:abc def" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(parseDotEnv(readFileSync(path, "utf8"), path)).toEqual({
      OPENAI_API_KEY: "sk-first-key-1234567890",
      TELEGRAM_BOT_TOKEN: "123:abc def",
    });
    expect(dotEnvModeProblem(path)).toBeNull();
  });

  it("flags a .env others can read", () => {
    const path = join(mkdtempSync(join(tmpdir(), "mercury-env-")), ".env");
    writeFileSync(path, "A=b\n", { mode: 0o644 });
    expect(dotEnvModeProblem(path)).toContain("chmod 600");
  });

  it("lets the process environment win over .env", () => {
    const path = join(mkdtempSync(join(tmpdir(), "mercury-env-")), ".env");
    writeFileSync(path, "MERCURY_MODEL=from-file\nOTHER=1\n");
    expect(environmentWithDotEnv(path, { MERCURY_MODEL: "from-env" })).toMatchObject({
      MERCURY_MODEL: "from-env",
      OTHER: "1",
    });
  });

  it("rejects a malformed .env line without echoing the secret", () => {
    expect(() => parseDotEnv("OPENAI_API_KEY sk-very-secret-value", "/x/.env")).toThrow(
      /\/x\/\.env:1: expected KEY=value/,
    );
    expect(() => parseDotEnv("OPENAI_API_KEY sk-very-secret-value", "/x/.env")).not.toThrow(/very-secret/);
  });

  it("redacts known secret values and well-known key shapes", () => {
    const redactor = new Redactor({
      OPENAI_API_KEY: "sk-live-abcdefghijklmnop",
      MY_PASSWORD: "hunter2hunter2",
      PATH: "/usr/bin",
    });
    const text =
      "key sk-live-abcdefghijklmnop, pw hunter2hunter2, other sk-proj-ZZZZZZZZZZZZZZZZZZZZ, Bearer abcdefghijklmnopqrstu, bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0, path /usr/bin";
    const redacted = redactor.redact(text);
    expect(redacted).not.toMatch(/abcdefghijklmnop|hunter2|ZZZZ|AAHdqTcv/);
    expect(redacted).toContain("Bearer [REDACTED]");
    expect(redacted).toContain("path /usr/bin");
  });
});
