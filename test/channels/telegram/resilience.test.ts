import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { createTelegramChannel } from "../../../src/channels/telegram/bot.js";
import { CONFLICT_MESSAGE } from "../../../src/channels/telegram/poller.js";
import { openMemoryDatabase } from "../../../src/storage/database.js";
import { FakeTelegramServer } from "../../fakes/telegram-server.js";
import { FakeGateway } from "./fake-gateway.js";
import { type Harness, MEMBER, OWNER, startHarness } from "./harness.js";

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("polling health", () => {
  it("restarts polling by itself when getUpdates stops answering (sleep, dead connection)", async () => {
    harness = await startHarness({ pollTimeoutSeconds: 1, watchdogGraceMs: 300 });
    const { server, gateway, channel } = harness;
    await harness.pairOwner();
    server.setOutage("hang");
    // Poll timeout 1 s + grace 0.3 s: the hung request is abandoned and a new one is made.
    await server.waitFor(() => channel.health().lastError?.includes("stopped answering"), 5000, "watchdog");
    server.setOutage(null);
    server.sendUserMessage(OWNER, "are you back?");
    await server.waitFor(() => gateway.submits.length === 1, 8000, "a message after the outage");
    await server.waitFor(() => channel.health().lastError === null, 5000, "healthy again");
    expect(channel.health().polling).toBe(true);
    expect(harness.logs.some((entry) => entry.message.includes("telegram polling recovered"))).toBe(true);
  });

  it("backs off through a 502 outage and recovers", async () => {
    harness = await startHarness();
    const { server, gateway, channel } = harness;
    await harness.pairOwner();
    server.setOutage("502");
    await server.waitFor(() => channel.health().lastError?.includes("502"), 5000, "502 reported");
    const during = server.callsTo("getUpdates").length;
    await sleep(400);
    // Backoff (50 ms doubling to 200 ms): a handful of polls, not a busy loop.
    expect(server.callsTo("getUpdates").length - during).toBeLessThan(10);
    server.setOutage(null);
    server.sendUserMessage(OWNER, "hello again");
    await server.waitFor(() => gateway.submits.length === 1, 5000, "message after 502s");
    expect(channel.health().lastError).toBeNull();
  });

  it("reports a 409 conflict clearly and resumes when the other poller is gone", async () => {
    harness = await startHarness();
    const { server, gateway, channel } = harness;
    await harness.pairOwner();
    server.failNext(
      "getUpdates",
      {
        error_code: 409,
        description:
          "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      },
      3,
    );
    // Let the current long poll end so the scripted conflicts are served.
    server.sendUserMessage(OWNER, "first");
    await server.waitFor(() => channel.health().lastError === CONFLICT_MESSAGE, 5000, "conflict reported");
    expect(
      harness.logs.some(
        (entry) => entry.level === "error" && entry.message.includes("another process is polling"),
      ),
    ).toBe(true);
    server.sendUserMessage(OWNER, "second");
    await server.waitFor(() => gateway.submits.length === 2, 5000, "both messages after the conflict");
    expect(gateway.submits.map((input) => input.text)).toEqual(["first", "second"]);
  });
});

describe("start and stuck handlers", () => {
  it("refuses to start with a clear message when Telegram rejects the token", async () => {
    const server = await FakeTelegramServer.start();
    const channel = createTelegramChannel({
      token: "999:WRONG-token",
      apiRoot: server.apiRoot,
      gateway: new FakeGateway(),
      database: openMemoryDatabase(),
      workspaceDir: tmpdir(),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    await expect(channel.start()).rejects.toThrow(/401 Unauthorized\): check TELEGRAM_BOT_TOKEN/);
    expect(() =>
      createTelegramChannel({
        token: "not a token",
        gateway: new FakeGateway(),
        database: openMemoryDatabase(),
        workspaceDir: tmpdir(),
      }),
    ).toThrow(/does not look like a bot token/);
    await server.close();
  });

  it("keeps polling for everyone while one user's task submission is stuck", async () => {
    harness = await startHarness({ handlerWaitMs: 200 });
    const { server, gateway, access } = harness;
    await harness.pairOwner();
    access.approve(MEMBER.id);
    gateway.hangingUsers.add(`telegram:${MEMBER.id}`);
    server.sendUserMessage(MEMBER, "this hangs");
    await server.waitFor(() => gateway.submits.length === 1, 5000, "the stuck submit");
    server.sendUserMessage(OWNER, "but I still get through");
    await server.waitFor(() => gateway.submits.length === 2, 5000, "the owner's submit");
    expect(harness.logs.some((entry) => entry.message.includes("handlers still running"))).toBe(true);
    gateway.hangingUsers.clear();
  });
});

describe("sending", () => {
  it("honours retry_after on 429", async () => {
    harness = await startHarness();
    const { server } = harness;
    await harness.pairOwner();
    server.failNext("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 1",
      parameters: { retry_after: 1 },
    });
    harness.gateway.onSubmit = (_input, task) => setTimeout(() => task.end("rate limited reply"), 5);
    server.sendUserMessage(OWNER, "hi");
    await harness.reply(OWNER.id, /rate limited reply/, 8000);
    const sends = server
      .callsTo("sendMessage")
      .filter((call) => String(call.payload.text).includes("rate limited"));
    expect(sends).toHaveLength(2);
    const waited = (sends[1]?.at ?? 0) - (sends[0]?.at ?? 0);
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThan(2500);
  });

  it("a send that fails after the transport's retries is sent again while the bot runs: delivered once", async () => {
    harness = await startHarness({
      retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 50 },
      deliveryRetryMs: 20,
    });
    const { server, database } = harness;
    await harness.pairOwner();
    server.failNext("sendMessage", { error_code: 500, description: "Internal Server Error" }, 3);
    harness.gateway.onSubmit = (_input, task) => setTimeout(() => task.end("this arrives late"), 5);
    server.sendUserMessage(OWNER, "hi");
    await harness.reply(OWNER.id, /this arrives late/, 8000);
    await server.waitFor(
      () =>
        database.prepare("SELECT status FROM telegram_deliveries WHERE status = 'sent'").get() ?? undefined,
      5000,
    );
    const record = database.prepare("SELECT status, attempts, last_error FROM telegram_deliveries").get();
    expect(record).toEqual({ status: "sent", attempts: 2, last_error: null });
    // Three failed sends by the transport, then one that arrived: the part is in the chat once.
    expect(
      server.callsTo("sendMessage").filter((call) => String(call.payload.text).includes("arrives late")),
    ).toHaveLength(4);
    expect(server.chat(OWNER.id).filter((message) => message.text.includes("arrives late"))).toHaveLength(1);
    expect(server.chat(OWNER.id).filter((message) => /could not be delivered/.test(message.text))).toEqual(
      [],
    );
  });

  it("a send the Bot API refuses (4xx) is not retried: recorded as failed, logged, and the user told", async () => {
    harness = await startHarness({ retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 50 } });
    const { server, database } = harness;
    await harness.pairOwner();
    server.failNext("sendMessage", { error_code: 400, description: "Bad Request: message is too long" }, 1);
    harness.gateway.onSubmit = (_input, task) => setTimeout(() => task.end("this will not arrive"), 5);
    server.sendUserMessage(OWNER, "hi");
    const notice = await harness.reply(OWNER.id, /could not be delivered/, 8000);
    expect(notice.text).toContain("400 Bad Request: message is too long");
    const record = database.prepare("SELECT status, attempts, last_error FROM telegram_deliveries").get();
    expect(record).toEqual({
      status: "failed",
      attempts: 1,
      last_error: "400 Bad Request: message is too long (sendMessage)",
    });
    expect(
      harness.logs.some(
        (entry) => entry.level === "error" && entry.message.includes("could not be delivered"),
      ),
    ).toBe(true);
  });
});
