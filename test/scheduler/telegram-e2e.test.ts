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

interface HistoryJson {
  runs: {
    timing: string;
    status: string;
    outcome: string | null;
    reason: string | null;
    usage: { inputTokens: number; outputTokens: number; costUsd: number };
    delivery: string | null;
  }[];
}

// Real processes on a shared 2-core machine: the harness limit is generous; nothing asserts on time.
describe("scheduled jobs end to end (daemon, loopback model, loopback Telegram)", {
  timeout: 120_000,
}, () => {
  it("a job created from Telegram chat (confirmed) fires, is delivered to Telegram exactly once and shows in history", async () => {
    fixture.current = daemonHome(fixture.server.url, {
      TELEGRAM_BOT_TOKEN: FAKE_TOKEN,
      MERCURY_TELEGRAM_API_ROOT: fixture.telegram.apiRoot,
      MERCURY_SCHEDULER_TICK_MS: "50",
    });
    writeFileSync(join(fixture.current.home, "config.yaml"), `${daemonConfig}telegram:\n  enabled: true\n`);
    pairOwner(fixture.current.home);
    expect((await fixture.current.cli(["start"])).code).toBe(0);

    // The agent answers /schedule with a schedule_task call; the tool asks the owner in Telegram.
    fixture.server.push({
      toolCalls: [
        {
          name: "schedule_task",
          input: {
            schedule: "every 60 minutes",
            task: "post the build status",
            name: "build status",
            workspace: fixture.current.workspace,
          },
        },
      ],
    });
    fixture.server.push({ text: "Scheduled: build status, every hour." });
    fixture.telegram.sendUserMessage(OWNER, "/schedule every hour post the build status");
    await waitFor(
      () =>
        fixture.telegram.chat(OWNER.id).some((message) => message.fromBot && message.replyMarkup !== null),
      15_000,
      "the confirmation question in Telegram",
    );
    const question = fixture.telegram
      .chat(OWNER.id)
      .find((message) => message.fromBot && message.replyMarkup !== null);
    if (!question?.replyMarkup) throw new Error("no question");
    expect(question.text).toContain("Create this scheduled job?");
    const yes = question.replyMarkup.inline_keyboard
      .flat()
      .find((button) => button.text.toLowerCase() === "yes");
    if (!yes) throw new Error(`no yes button in ${JSON.stringify(question.replyMarkup)}`);
    fixture.telegram.pressButton(OWNER, question, yes.callback_data);
    await waitFor(
      () =>
        fixture.telegram.chat(OWNER.id).some((message) => message.text.includes("Scheduled: build status")),
      15_000,
      "the agent's confirmation",
    );
    const list = JSON.parse((await fixture.current.cli(["schedule", "list", "--json"])).stdout) as {
      jobs: { id: string; owner: string; delivery: string; name: string }[];
    };
    const job = list.jobs.find((entry) => entry.name === "build status");
    expect(job).toMatchObject({ owner: "owner", delivery: `telegram:${OWNER.id}` });
    if (!job) throw new Error("job not created");

    // Fire it now (the test controls the clock through run-now, not sleeps).
    fixture.server.push({ text: "Build status: green.", usage: { inputTokens: 40, outputTokens: 6 } });
    const fired = await fixture.current.cli(["schedule", "run-now", job.id, "--json"]);
    expect(fired.code, fired.stderr).toBe(0);
    const daemon = fixture.current;
    await waitFor(
      async () => {
        const history = JSON.parse(
          (await daemon.cli(["schedule", "history", job.id, "--json"])).stdout,
        ) as HistoryJson;
        return history.runs[0]?.delivery?.startsWith("sent") === true;
      },
      20_000,
      "the run to be delivered",
    );
    const delivered = fixture.telegram
      .chat(OWNER.id)
      .filter((message) => message.text.includes("Build status: green."));
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.text).toContain("build status");
    const history = JSON.parse(
      (await fixture.current.cli(["schedule", "history", job.id, "--json"])).stdout,
    ) as HistoryJson;
    expect(history.runs).toEqual([
      expect.objectContaining({
        timing: "manual",
        status: "finished",
        outcome: "responded",
        usage: expect.objectContaining({ inputTokens: 40, outputTokens: 6 }),
        delivery: `sent to telegram:${OWNER.id}`,
      }),
    ]);
    // A restart does not send it again.
    expect((await fixture.current.cli(["stop"])).code).toBe(0);
    expect((await fixture.current.cli(["start"])).code).toBe(0);
    const status = JSON.parse((await fixture.current.cli(["status", "--json"])).stdout) as {
      channels: { state: string }[];
    };
    expect(status.channels[0]?.state).toBe("running");
    expect(
      fixture.telegram.chat(OWNER.id).filter((message) => message.text.includes("Build status: green.")),
    ).toHaveLength(1);
    expect(
      fixture.current.query(
        "SELECT status, attempts FROM task_deliveries WHERE target = ?",
        `telegram:${OWNER.id}`,
      ),
    ).toEqual([{ status: "sent", attempts: 1 }]);
  });

  it("a run over its per-run token budget is paused, the job is paused, and the owner is told in Telegram", async () => {
    fixture.current = daemonHome(fixture.server.url, {
      TELEGRAM_BOT_TOKEN: FAKE_TOKEN,
      MERCURY_TELEGRAM_API_ROOT: fixture.telegram.apiRoot,
      MERCURY_SCHEDULER_TICK_MS: "50",
    });
    writeFileSync(join(fixture.current.home, "config.yaml"), `${daemonConfig}telegram:\n  enabled: true\n`);
    pairOwner(fixture.current.home);
    const added = await fixture.current.cli([
      "schedule",
      "add",
      "0 9 * * *",
      "summarize the logs",
      "--tz",
      "Europe/Berlin",
      "--workspace",
      fixture.current.workspace,
      "--deliver",
      `telegram:${OWNER.id}`,
      "--run-tokens",
      "50",
      "--json",
    ]);
    expect(added.code, added.stderr).toBe(0);
    const jobId = (JSON.parse(added.stdout) as { job: { id: string } }).job.id;
    expect((await fixture.current.cli(["start"])).code).toBe(0);
    fixture.server.push({
      toolCalls: [{ name: "list_dir", input: { path: "." } }],
      usage: { inputTokens: 60, outputTokens: 10 },
    });
    expect((await fixture.current.cli(["schedule", "run-now", jobId])).code).toBe(0);
    await waitFor(
      () => fixture.telegram.chat(OWNER.id).some((message) => message.text.includes("The job is paused")),
      20_000,
      "the pause message in Telegram",
    );
    const shown = JSON.parse((await fixture.current.cli(["schedule", "show", jobId, "--json"])).stdout) as {
      job: { status: string; statusReason: string };
      runs: { outcome: string }[];
    };
    expect(shown.job.status).toBe("paused");
    expect(shown.job.statusReason).toMatch(/this run used 70 of its 50 tokens/);
    expect(shown.runs[0]?.outcome).toBe("paused");
    expect(fixture.server.chatRequests()).toHaveLength(1);
  });
});
