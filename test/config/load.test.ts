import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.js";
import { resolveConfig } from "../../src/config/load.js";
import { readSnapshot, snapshotPath } from "../../src/config/snapshot.js";

function homeWith(yaml?: string): string {
  const home = mkdtempSync(join(tmpdir(), "mercury-config-"));
  if (yaml !== undefined) writeFileSync(join(home, "config.yaml"), yaml);
  return home;
}

describe("config precedence: flags > env > file > defaults", () => {
  it("uses defaults without a file", () => {
    const config = resolveConfig(homeWith(), {});
    expect(config.chain).toEqual([{ name: "openai", model: "gpt-4o-mini" }]);
    expect(config.agent.maxSteps).toBe(25);
    expect(config.budget.dailyTokens).toBe(2_000_000);
  });

  it("file beats defaults", () => {
    const config = resolveConfig(
      homeWith("provider: deepseek\nmodel: deepseek-reasoner\nagent:\n  maxSteps: 7\n"),
      {},
    );
    expect(config.chain[0]).toEqual({
      name: "deepseek",
      model: "deepseek-reasoner",
      baseUrl: "https://api.deepseek.com/v1",
    });
    expect(config.agent.maxSteps).toBe(7);
  });

  it("env beats file, flags beat env", () => {
    const home = homeWith("provider: deepseek\nmodel: deepseek-chat\n");
    const env = { MERCURY_PROVIDER: "ollama", MERCURY_MODEL: "qwen3" };
    expect(resolveConfig(home, env).chain[0]).toEqual({
      name: "ollama",
      model: "qwen3",
      baseUrl: "http://127.0.0.1:11434/v1",
    });
    const flagged = resolveConfig(home, env, {
      provider: "openai-compatible",
      model: "m",
      baseUrl: "http://127.0.0.1:1/v1",
    });
    expect(flagged.chain[0]).toEqual({
      name: "openai-compatible",
      model: "m",
      baseUrl: "http://127.0.0.1:1/v1",
    });
  });

  it("a provider changed by env gets that provider's default model, not the file's", () => {
    const config = resolveConfig(homeWith("provider: deepseek\nmodel: deepseek-chat\n"), {
      MERCURY_PROVIDER: "anthropic",
    });
    expect(config.chain[0]?.model).toBe("claude-sonnet-4-5");
  });

  it("keeps the file's fallback chain behind an overridden primary", () => {
    const home = homeWith(
      "providers:\n  - name: openai\n    model: gpt-4o\n  - name: ollama\n    model: llama3.1\n",
    );
    const config = resolveConfig(home, { MERCURY_MODEL: "gpt-4.1" });
    expect(config.chain.map((entry) => `${entry.name}:${entry.model}`)).toEqual([
      "openai:gpt-4.1",
      "ollama:llama3.1",
    ]);
  });

  it("stall thresholds come from the environment", () => {
    const config = resolveConfig(homeWith(), {
      MERCURY_STALL_SOFT_MS: "1000",
      MERCURY_STALL_HARD_MS: "5000",
    });
    expect(config.stall).toEqual({ softMs: 1000, hardMs: 5000 });
    expect(() => resolveConfig(homeWith(), { MERCURY_STALL_SOFT_MS: "soon" })).toThrow(
      /MERCURY_STALL_SOFT_MS="soon"/,
    );
  });
});

describe("invalid configuration stops with the file, the key and what is expected", () => {
  it("names a wrongly typed key", () => {
    const home = homeWith("agent:\n  maxSteps: lots\n");
    expect(() => resolveConfig(home, {})).toThrow(ConfigError);
    expect(() => resolveConfig(home, {})).toThrow(
      /config\.yaml is invalid:\n {2}- agent\.maxSteps: .*number/,
    );
  });

  it("names an unknown key instead of ignoring it", () => {
    expect(() => resolveConfig(homeWith("modle: gpt-4o\n"), {})).toThrow(/modle/);
  });

  it("refuses secrets in config.yaml", () => {
    expect(() => resolveConfig(homeWith("provider: openai\napiKey: sk-abc\n"), {})).toThrow(
      /"apiKey" looks like a secret/,
    );
  });

  it("refuses a token but not a token count", () => {
    expect(() => resolveConfig(homeWith("telegram:\n  botToken: 123:abc\n"), {})).toThrow(
      /"telegram.botToken" looks like a secret/,
    );
    expect(resolveConfig(homeWith("budget:\n  dailyTokens: 100\n"), {}).budget.dailyTokens).toBe(100);
  });

  it("reports broken YAML", () => {
    expect(() => resolveConfig(homeWith("agent: [unclosed\n"), {})).toThrow(/not valid YAML/);
  });

  it("rejects an unknown provider from the environment", () => {
    expect(() => resolveConfig(homeWith(), { MERCURY_PROVIDER: "skynet" })).toThrow(
      /MERCURY_PROVIDER: unknown provider "skynet"/,
    );
  });

  it("requires a base URL for openai-compatible and a valid URL", () => {
    expect(() => resolveConfig(homeWith(), { MERCURY_PROVIDER: "openai-compatible" })).toThrow(
      /needs a base URL/,
    );
    expect(() => resolveConfig(homeWith(), { MERCURY_BASE_URL: "ftp://x" })).toThrow(/not an http\(s\) URL/);
  });
});

describe("validated snapshot of config.yaml", () => {
  it("reuses the validated copy for the same text, and validates again after any edit", () => {
    const home = homeWith("provider: deepseek\nagent:\n  maxSteps: 7\n");
    expect(resolveConfig(home, {}).agent.maxSteps).toBe(7);
    const copy = snapshotPath(join(home, "config.yaml"));
    expect(existsSync(copy)).toBe(true);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    expect(resolveConfig(home, {}).agent.maxSteps).toBe(7);
    // The same keys, one value changed and one made invalid: each edit is read and checked afresh.
    writeFileSync(join(home, "config.yaml"), "provider: deepseek\nagent:\n  maxSteps: 9\n");
    expect(resolveConfig(home, {}).agent.maxSteps).toBe(9);
    writeFileSync(join(home, "config.yaml"), "provider: deepseek\nagent:\n  maxSteps: lots\n");
    expect(() => resolveConfig(home, {})).toThrow(/agent\.maxSteps: .*number/);
    writeFileSync(join(home, "config.yaml"), "provider: deepseek\napiKey: sk-abc\n");
    expect(() => resolveConfig(home, {})).toThrow(/"apiKey" looks like a secret/);
  });

  it("never trusts a copy made for other text or by other validating code", () => {
    const home = homeWith("agent:\n  maxSteps: 7\n");
    resolveConfig(home, {});
    const copy = snapshotPath(join(home, "config.yaml"));
    const snapshot = JSON.parse(readFileSync(copy, "utf8")) as Record<string, unknown>;
    // A copy claiming another validator (an older build) or a torn copy: the file itself is read.
    writeFileSync(
      copy,
      JSON.stringify({ ...snapshot, validator: "older", config: { agent: { maxSteps: 3 } } }),
    );
    expect(resolveConfig(home, {}).agent.maxSteps).toBe(7);
    writeFileSync(copy, "{ torn");
    expect(resolveConfig(home, {}).agent.maxSteps).toBe(7);
    expect(readSnapshot(join(home, "config.yaml"), "agent:\n  maxSteps: 7\n")).toEqual({
      agent: { maxSteps: 7 },
    });
    expect(readSnapshot(join(home, "config.yaml"), "agent:\n  maxSteps: 8\n")).toBeNull();
  });

  it("still works, and leaves nothing behind, when the copy cannot be written", () => {
    const home = homeWith("agent:\n  maxSteps: 5\n");
    // A folder where the copy should go: the rename fails whoever runs this (root included).
    mkdirSync(join(snapshotPath(join(home, "config.yaml")), "occupied"), { recursive: true });
    expect(resolveConfig(home, {}).agent.maxSteps).toBe(5);
    expect(readdirSync(home).sort()).toEqual([".config.validated.json", "config.yaml"]);
  });
});
