import { spawn } from "node:child_process";
import { chmodSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrations } from "../../src/storage/migrations/index.js";
import { cliPath, makeHome, runCli } from "../helpers/cli.js";

/** One clear line, the fix, no stack trace. */
function expectOneLine(stderr: string, fix: RegExp): void {
  const lines = stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(fix);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe("state that is never lost (built binary, real processes)", { timeout: 120_000 }, () => {
  it("five processes opening a fresh home at once all succeed", async () => {
    const { home } = makeHome();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => runCli(["usage"], { home, timeoutMs: 60_000 })),
    );
    for (const result of results) {
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
    }
    const database = new Database(join(home, "mercury.db"), { readonly: true });
    expect(database.pragma("user_version", { simple: true })).toBe(migrations.length);
    database.close();
  });

  it("a truncated database gives one line naming the fix and exit 2", async () => {
    const { home } = makeHome();
    expect((await runCli(["usage"], { home })).code).toBe(0);
    const path = join(home, "mercury.db");
    truncateSync(path, Math.floor(statSync(path).size / 3));
    const result = await runCli(["usage"], { home });
    expect(result.code).toBe(2);
    expectOneLine(result.stderr, /^mercury: the database is damaged .*mercury doctor/);
  });

  it("a read-only home gives one line naming the fix and exit 2", async () => {
    const { home, userHome } = makeHome();
    chmodSync(home, 0o555);
    // root ignores permissions: run the binary as nobody then (setpriv, util-linux).
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chmodSync(join(home, ".."), 0o755);
    const command = asRoot
      ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, cliPath, "usage"]
      : [process.execPath, cliPath, "usage"];
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(command[0] as string, command.slice(1), {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: userHome, MERCURY_HOME: home, NO_COLOR: "1" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr }));
    });
    expect(result.code).toBe(2);
    expectOneLine(result.stderr, /^mercury: Mercury cannot write its home directory.*mercury doctor/);
  });
});
