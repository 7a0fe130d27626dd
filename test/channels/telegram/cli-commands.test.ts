import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TelegramAccess } from "../../../src/channels/telegram/access.js";
import { registerTelegramCommands } from "../../../src/cli/commands/telegram.js";
import { openDatabase } from "../../../src/storage/database.js";

let directory = "";
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "mercury-tg-cli-"));
  process.exitCode = undefined;
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
  process.exitCode = undefined;
});

function run(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const program = new Command().exitOverride();
  const path = join(directory, "mercury.db");
  registerTelegramCommands(program, {
    openDatabase: () => openDatabase(path),
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
  });
  program.parse(["node", "mercury", "telegram", ...args]);
  const exitCode = process.exitCode ?? 0;
  process.exitCode = undefined;
  return { stdout: out.join(""), stderr: err.join(""), exitCode, path };
}

describe("mercury telegram", () => {
  it("pair --json prints one JSON document with a code that redeems", () => {
    const result = run("pair", "--json");
    expect(result.exitCode).toBe(0);
    const parsed = JSON.parse(result.stdout) as { code: string; expiresAt: string };
    expect(parsed.code).toMatch(/^[A-Z2-9]{8}$/);
    const database = openDatabase(result.path);
    expect(new TelegramAccess(database).redeemPairingCode(parsed.code, 5, null).ok).toBe(true);
    database.close();
  });

  it("approve, list and revoke, with exit codes for bad and unknown ids", () => {
    expect(run("approve", "4242").stdout).toContain("Approved 4242 as member (userKey telegram:4242)");
    const listed = JSON.parse(run("list", "--json").stdout) as {
      users: { userId: number; userKey: string }[];
    };
    expect(listed.users.map((user) => [user.userId, user.userKey])).toEqual([[4242, "telegram:4242"]]);
    expect(run("revoke", "4242")).toMatchObject({ exitCode: 0 });
    const again = run("revoke", "4242");
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("has no active access");
    const bad = run("approve", "@bob");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("is not a Telegram user id");
    expect(run("list").stdout).toContain("revoked");
  });
});
