import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

describe("process guards", () => {
  it("log a stray rejection and keep going; log an uncaught exception with context, clean up and exit 1", () => {
    const directory = mkdtempSync(join(tmpdir(), "mercury-guards-"));
    const child = spawnSync(
      process.execPath,
      ["--import", "tsx", resolve(import.meta.dirname, "fixtures/guard-child.ts"), directory],
      { cwd: resolve(import.meta.dirname, "../.."), encoding: "utf8", timeout: 20_000 },
    );
    expect(child.status, child.stderr).toBe(1);
    const lines = readFileSync(join(directory, "daemon.log"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { level: number; msg: string; error?: string; origin?: string });
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: "unhandled promise rejection",
      error: "Error: stray rejection in a channel",
    });
    // The rejection did not stop the process: the timer still fired afterwards.
    expect(lines[1]).toMatchObject({
      level: 60,
      msg: "uncaught exception; exiting for a restart",
      origin: "uncaughtException",
      error: "Error: boom in a timer",
    });
    expect(existsSync(join(directory, "cleaned-up"))).toBe(true);
  });
});
