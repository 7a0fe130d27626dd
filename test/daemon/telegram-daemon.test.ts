import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TelegramAccess } from "../../src/channels/telegram/access.js";
import { openDatabase } from "../../src/storage/database.js";
import { FAKE_TOKEN } from "../fakes/telegram-server.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";
import { daemonConfig, daemonHome, killHard, pidFromStart, waitFor } from "./daemon-helpers.js";

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

interface StatusJson {
  channels: { name: string; state: string; lastError: string | null; restarts: number }[];
}

describe("the daemon hosts the Telegram channel", () => {
  it("starts it when TELEGRAM_BOT_TOKEN is set and telegram.enabled is true; Telegram and the terminal share the ledger", async () => {
    fixture.current = daemonHome(fixture.server.url, {
      TELEGRAM_BOT_TOKEN: FAKE_TOKEN,
      MERCURY_TELEGRAM_API_ROOT: fixture.telegram.apiRoot,
    });
    writeFileSync(join(fixture.current.home, "config.yaml"), `${daemonConfig}telegram:\n  enabled: true\n`);
    pairOwner(fixture.current.home);
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    // `start` returns when the daemon answers; the channel may still be connecting ("starting").
    let channels: StatusJson["channels"] = [];
    const daemon = fixture.current;
    await waitFor(
      async () => {
        channels = (JSON.parse((await daemon.cli(["status", "--json"])).stdout) as StatusJson).channels;
        return channels.some((channel) => channel.state !== "starting");
      },
      15_000,
      "the Telegram channel to leave the starting state",
    );
    expect(channels).toEqual([expect.objectContaining({ name: "telegram", state: "running" })]);

    fixture.server.push({ text: "Hi Alice, from the daemon." });
    fixture.telegram.sendUserMessage(OWNER, "hello from telegram");
    await waitFor(
      () =>
        fixture.telegram
          .chat(OWNER.id)
          .some((message) => message.fromBot && message.text.includes("Hi Alice, from the daemon.")),
      15_000,
      "the reply in the Telegram chat",
    );
    // The reply streams into the chat as it is written; the task's outcome is recorded after the
    // answer is judged, so wait for the ledger row rather than assume it is already there.
    const tasks = () =>
      daemon.query<{ user_key: string; channel: string; status: string }>(
        "SELECT user_key, channel, status FROM tasks",
      );
    await waitFor(
      () => tasks().some((task) => task.status !== "running"),
      15_000,
      "the Telegram task to leave the running state",
    );
    expect(tasks()).toEqual([{ user_key: "owner", channel: "telegram", status: "responded" }]);
  });

  it("a channel that cannot start is retried with backoff while the daemon and its socket keep working", async () => {
    // The Bot API refuses this token (401): the channel cannot start however often it tries.
    fixture.current = daemonHome(fixture.server.url, {
      TELEGRAM_BOT_TOKEN: "111:wrong-token",
      MERCURY_TELEGRAM_API_ROOT: fixture.telegram.apiRoot,
    });
    writeFileSync(join(fixture.current.home, "config.yaml"), `${daemonConfig}telegram:\n  enabled: true\n`);
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const daemon = fixture.current;
    await waitFor(
      async () => {
        const status = JSON.parse((await daemon.cli(["status", "--json"])).stdout) as StatusJson;
        return (status.channels[0]?.restarts ?? 0) >= 1 && status.channels[0]?.state !== "running";
      },
      20_000,
      "the channel to be retried",
    );
    const status = JSON.parse((await fixture.current.cli(["status", "--json"])).stdout) as StatusJson;
    expect(status.channels).toEqual([
      expect.objectContaining({
        name: "telegram",
        lastError: expect.stringContaining("Telegram refused the bot token"),
      }),
    ]);
    fixture.server.push({ text: "still answering" });
    const client = await fixture.current.connect();
    const { taskId } = (await client.request({ type: "submit", text: "are you up?" })) as { taskId: string };
    client.close();
    await waitFor(
      () =>
        fixture.current?.query<{ status: string }>("SELECT status FROM tasks WHERE id = ?", taskId)[0]
          ?.status === "responded",
      10_000,
      "the terminal task to complete",
    );
  });

  it("leaves Telegram off when telegram.enabled is false, and says so in the log", async () => {
    fixture.current = daemonHome(fixture.server.url, {
      TELEGRAM_BOT_TOKEN: FAKE_TOKEN,
      MERCURY_TELEGRAM_API_ROOT: fixture.telegram.apiRoot,
    });
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    const status = JSON.parse((await fixture.current.cli(["status", "--json"])).stdout) as StatusJson;
    expect(status.channels).toEqual([]);
    const logs = await fixture.current.cli(["logs", "-n", "20"]);
    expect(logs.stdout).toContain("telegram.enabled is false");
    expect(fixture.telegram.callsTo("getMe")).toEqual([]);
  });

  it("kill -9 during a Telegram task: the restarted daemon resumes it and the chat gets the answer once", async () => {
    fixture.current = daemonHome(fixture.server.url, {
      TELEGRAM_BOT_TOKEN: FAKE_TOKEN,
      MERCURY_TELEGRAM_API_ROOT: fixture.telegram.apiRoot,
    });
    writeFileSync(join(fixture.current.home, "config.yaml"), `${daemonConfig}telegram:\n  enabled: true\n`);
    pairOwner(fixture.current.home);
    fixture.server.push({ hang: true, text: ["Let me look"] });
    const started = await fixture.current.cli(["start"]);
    expect(started.code, started.stderr).toBe(0);
    fixture.telegram.sendUserMessage(OWNER, "summarise my week");
    await waitFor(() => fixture.server.chatRequests().length === 1, 15_000, "the task's model request");
    await killHard(pidFromStart(started.stdout));

    fixture.server.push({ text: "Your week: three meetings and a launch." });
    const restarted = await fixture.current.cli(["start"]);
    expect(restarted.code, restarted.stderr).toBe(0);
    const finalText = "Your week: three meetings and a launch.";
    await waitFor(
      () =>
        fixture.telegram
          .chat(OWNER.id)
          .some((message) => message.fromBot && message.text.includes(finalText)),
      15_000,
      "the resumed answer in the chat",
    );
    // A graceful restart afterwards must not send it again.
    expect((await fixture.current.cli(["stop"])).code).toBe(0);
    expect((await fixture.current.cli(["start"])).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const withAnswer = fixture.telegram
      .chat(OWNER.id)
      .filter((message) => message.fromBot && message.text.includes(finalText));
    expect(withAnswer).toHaveLength(1);
    expect(fixture.current.query("SELECT channel, status, resumes FROM tasks")).toEqual([
      { channel: "telegram", status: "responded", resumes: 1 },
    ]);
    expect(fixture.server.chatRequests()).toHaveLength(2);
  });
});
