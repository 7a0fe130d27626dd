import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TelegramAccess } from "../../src/channels/telegram/access.js";
import { openDatabase } from "../../src/storage/database.js";
import { daemonHome, waitFor } from "../daemon/daemon-helpers.js";
import { FAKE_TOKEN } from "../fakes/telegram-server.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";
import { factExtraction, filesUnder, noMemories } from "../helpers/memory-facts.js";

const fixture = useDaemonFixture({ telegram: true, stopDaemon: true });

const OWNER = { id: 4242, username: "alice" };
const MEMBER = { id: 5151, username: "bob" };

function holding(home: string, word: string): string[] {
  return filesUnder(home).filter((path) => readFileSync(path).toString("utf8").toLowerCase().includes(word));
}

interface Listed {
  memories: { id: number; text: string }[];
}

describe("forget while the daemon runs, and one person's facts never touch another's", () => {
  it("a Telegram member's look-alike fact leaves the owner's alone; the owner's forget erases it from the running daemon's files and its next prompt", {
    timeout: 240_000,
  }, async () => {
    const secret = "zebraquartz";
    fixture.current = daemonHome(fixture.server.url, {
      TELEGRAM_BOT_TOKEN: FAKE_TOKEN,
      MERCURY_TELEGRAM_API_ROOT: fixture.telegram.apiRoot,
    });
    const daemon = fixture.current;
    writeFileSync(
      join(daemon.home, "config.yaml"),
      "retry:\n  attempts: 3\n  baseDelayMs: 10\n  maxDelayMs: 50\ntelegram:\n  enabled: true\n",
    );
    const database = openDatabase(join(daemon.home, "mercury.db"));
    try {
      const access = new TelegramAccess(database);
      access.redeemPairingCode(access.createPairingCode().code, OWNER.id, OWNER.username);
      access.approve(MEMBER.id, MEMBER.username);
    } finally {
      database.close();
    }
    const started = await daemon.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const listFor = async (user: string) =>
      (JSON.parse((await daemon.cli(["memory", "list", "--json", "--user", user])).stdout) as Listed)
        .memories;

    // The owner states a fact; the reply repeats it in capitals.
    fixture.server.push({ text: `Noted: ${secret.toUpperCase()}.` });
    fixture.server.push({
      text: factExtraction(`The user's locker code word is ${secret}.`, `my locker code word is ${secret}`),
    });
    fixture.telegram.sendUserMessage(OWNER, `my locker code word is ${secret}`);
    await waitFor(
      async () => (await listFor("owner")).length === 1,
      30_000,
      "the owner's memory to be stored",
    );
    // The member says the same thing with another value: stored for the member only, the owner's
    // memory is neither superseded nor confirmed.
    fixture.server.push({ text: "Noted, Bob." });
    fixture.server.push({
      text: factExtraction("The user's locker code word is walrusmint.", "my locker code word is walrusmint"),
    });
    fixture.telegram.sendUserMessage(MEMBER, "my locker code word is walrusmint");
    await waitFor(
      async () => (await listFor(`telegram:${MEMBER.id}`)).length === 1,
      30_000,
      "the member's memory to be stored",
    );
    const owners = await listFor("owner");
    expect(owners.map((memory) => memory.text)).toEqual([`The user's locker code word is ${secret}.`]);
    const shown = JSON.parse(
      (await daemon.cli(["memory", "show", "--json", String(owners[0]?.id)])).stdout,
    ) as {
      memory: { supersededAt: string | null; confirmations: number; contradictions: number };
    };
    expect(shown.memory).toMatchObject({ supersededAt: null, confirmations: 0, contradictions: 0 });

    // Forget from the CLI while the daemon holds the database open.
    const forgotten = await daemon.cli(["memory", "forget", String(owners[0]?.id)]);
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect(holding(daemon.home, secret)).toEqual([]);

    // The daemon's next task for the owner sends nothing of it.
    const before = fixture.server.chatRequests().length;
    fixture.server.push({ text: "Anything else?" });
    fixture.server.push({ text: noMemories });
    fixture.telegram.sendUserMessage(OWNER, "what do you remember about my locker?");
    await waitFor(
      () =>
        fixture.telegram
          .chat(OWNER.id)
          .some((message) => message.fromBot && message.text.includes("Anything else?")),
      30_000,
      "the owner's next reply",
    );
    const later = fixture.server
      .chatRequests()
      .slice(before)
      .map((request) => JSON.stringify(request.body).toLowerCase());
    expect(later.length).toBeGreaterThan(0);
    for (const body of later) expect(body).not.toContain(secret);
    // The member's memory is untouched.
    expect((await listFor(`telegram:${MEMBER.id}`)).map((memory) => memory.text)).toEqual([
      "The user's locker code word is walrusmint.",
    ]);
    await daemon.cli(["stop"]);
    expect(holding(daemon.home, secret)).toEqual([]);
  });
});
