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
// daemonConfig allows three attempts per model step: three errors fail the step on every provider.
const providerDown = Array.from({ length: 3 }, () => ({
  error: { status: 500, message: "upstream exploded" },
}));

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

describe("Telegram: a provider failure is named, and a reply that failed to send is sent once while the bot runs", () => {
  it("the outage outlasts the transport's retries: the failure reply arrives once, naming the provider and its reason", async () => {
    fixture.current = daemonHome(fixture.server.url, {
      TELEGRAM_BOT_TOKEN: FAKE_TOKEN,
      MERCURY_TELEGRAM_API_ROOT: fixture.telegram.apiRoot,
      // A tenth of the product's waits (50 ms doubling per call, 500 ms before a part is sent again):
      // the same sequence of failures and retries without 20 s of backoff.
      MERCURY_TELEGRAM_RETRY_BASE_MS: "50",
    });
    const daemon = fixture.current;
    writeFileSync(join(daemon.home, "config.yaml"), `${daemonConfig}telegram:\n  enabled: true\n`);
    pairOwner(daemon.home);
    fixture.server.push(...providerDown);
    const started = await daemon.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    // Every send of the task's two messages (the error notice, then the final reply) fails five times
    // in a row, which is all the transport retries of one call: both calls fail.
    fixture.telegram.failNext("sendMessage", { error_code: 502, description: "Bad Gateway" }, 10);
    fixture.telegram.sendUserMessage(OWNER, "what is on my calendar?");
    const finalReplies = () =>
      fixture.telegram
        .chat(OWNER.id)
        .filter((message) => message.fromBot && message.text.includes("Failed ("));
    await waitFor(() => finalReplies().length > 0, 120_000, "the failure reply in Telegram");
    await waitFor(
      () => daemon.query("SELECT status FROM telegram_deliveries WHERE status = 'pending'").length === 0,
      20_000,
      "no reply part left pending",
    );
    expect(finalReplies()).toHaveLength(1);
    expect(finalReplies()[0]?.text).toContain(
      "❌ Failed (the model provider failed): every provider failed:",
    );
    expect(finalReplies()[0]?.text).toContain("upstream exploded");
    expect(finalReplies()[0]?.text).not.toContain("(interrupted)");
    // Not given up: no "could not be delivered" in the chat, and the record says sent, on the second send.
    expect(
      fixture.telegram.chat(OWNER.id).filter((message) => message.text.includes("could not be delivered")),
    ).toEqual([]);
    expect(daemon.query("SELECT part, status, attempts FROM telegram_deliveries")).toEqual([
      { part: 0, status: "sent", attempts: 2 },
    ]);
    expect(daemon.query("SELECT status FROM tasks")).toEqual([{ status: "failed" }]);
  });
});
