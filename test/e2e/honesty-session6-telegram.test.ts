import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TelegramAccess } from "../../src/channels/telegram/access.js";
import { openDatabase } from "../../src/storage/database.js";
import { daemonConfig, daemonHome, waitFor } from "../daemon/daemon-helpers.js";
import { FAKE_TOKEN } from "../fakes/telegram-server.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";

const fixture = useDaemonFixture({ telegram: true, stopDaemon: true });
const OWNER = { id: 4242, username: "alice" };

function pairOwner(home: string): void {
  const database = openDatabase(join(home, "mercury.db"));
  try {
    const access = new TelegramAccess(database);
    const { code } = access.createPairingCode();
    access.redeemPairingCode(code, OWNER.id, OWNER.username);
  } finally {
    database.close();
  }
}

describe("the note beside an answer reaches Telegram (real daemon, fake Bot API, loopback model)", () => {
  it("a write that was refused and an answer that says it was made: the Telegram reply carries the failure", async () => {
    fixture.current = daemonHome(fixture.server.url, {
      TELEGRAM_BOT_TOKEN: FAKE_TOKEN,
      MERCURY_TELEGRAM_API_ROOT: fixture.telegram.apiRoot,
    });
    const daemon = fixture.current;
    writeFileSync(join(daemon.home, "config.yaml"), `${daemonConfig}telegram:\n  enabled: true\n`);
    pairOwner(daemon.home);
    // Mercury's own state is never writable by a task: the write is refused, whatever the model says.
    fixture.server.push(
      {
        toolCalls: [{ name: "write_file", input: { path: join(daemon.home, "notes.txt"), content: "n\n" } }],
      },
      { text: "Done, I saved your notes." },
    );
    const started = await daemon.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    fixture.telegram.sendUserMessage(OWNER, "save my notes");
    const answer = () =>
      fixture.telegram
        .chat(OWNER.id)
        .find((message) => message.fromBot && message.text.includes("Done, I saved"));
    await waitFor(() => answer() !== undefined, 20_000, "the answer in Telegram");
    // The answer is streamed and then edited into its final form with the footer.
    await waitFor(() => answer()?.text.includes("⚠️") === true, 20_000, "the note under the answer");
    expect(answer()?.text).toMatch(/⚠️ nothing was changed; write_file failed \(Permission denied/);
    expect(daemon.query("SELECT status, reason FROM tasks")).toEqual([
      { status: "responded", reason: expect.stringContaining("write_file failed") },
    ]);
  });
});
