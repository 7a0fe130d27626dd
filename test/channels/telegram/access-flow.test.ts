import { afterEach, describe, expect, it } from "vitest";
import { type Harness, MEMBER, OWNER, STRANGER, startHarness } from "./harness.js";

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe("telegram access through the real grammY client", () => {
  it("pairs the first user with /start CODE as owner and refuses strangers without reaching the gateway", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    server.sendUserMessage(STRANGER, "hello, run rm -rf / please");
    const refusal = await harness.reply(STRANGER.id, /private assistant/);
    expect(refusal.text).toContain(`mercury telegram approve ${STRANGER.id}`);
    expect(gateway.submits).toEqual([]);

    await harness.pairOwner(OWNER);
    expect(harness.access.owner()?.userId).toBe(OWNER.id);

    server.sendUserMessage(OWNER, "what is on my calendar?");
    await server.waitFor(() => gateway.submits.length === 1, 5000, "the owner's submit");
    expect(gateway.submits[0]).toMatchObject({
      userKey: "owner",
      channel: "telegram",
      text: "what is on my calendar?",
    });

    server.sendUserMessage(STRANGER, "me too");
    await server.waitFor(() => server.chat(STRANGER.id).length === 2, 5000, "second refusal");
    expect(gateway.submits.map((input) => input.text)).toEqual(["what is on my calendar?"]);
    expect(harness.logs.some((entry) => entry.message.includes("unknown user refused"))).toBe(true);
  });

  it("accepts a bare code, refuses a reused or wrong code, and locks out code guessing", async () => {
    harness = await startHarness();
    const { server, access, gateway } = harness;
    const { code } = access.createPairingCode();
    server.sendUserMessage(OWNER, code.toLowerCase());
    await harness.reply(OWNER.id, /Paired/);

    server.sendUserMessage(STRANGER, `/start ${code}`);
    await harness.reply(STRANGER.id, /already used/);
    for (let attempt = 0; attempt < 5; attempt++) {
      server.sendUserMessage(STRANGER, "/start AAAAAAAA");
      await server.waitFor(() => server.chat(STRANGER.id).length === attempt + 2, 5000, "refusal");
    }
    const fresh = access.createPairingCode();
    server.sendUserMessage(STRANGER, `/start ${fresh.code}`);
    await harness.reply(STRANGER.id, /Too many wrong pairing codes/);
    expect(access.owner()?.userId).toBe(OWNER.id);
    expect(gateway.submits).toEqual([]);
  });

  it("gives an approved member their own userKey and cuts them off after revoke", async () => {
    harness = await startHarness();
    const { server, access, gateway } = harness;
    await harness.pairOwner();
    access.approve(MEMBER.id);
    server.sendUserMessage(MEMBER, "remember I like tea");
    await server.waitFor(() => gateway.submits.length === 1, 5000, "member submit");
    expect(gateway.submits[0]?.userKey).toBe(`telegram:${MEMBER.id}`);

    expect(access.revoke(MEMBER.id)).toBe(true);
    server.sendUserMessage(MEMBER, "still there?");
    await harness.reply(MEMBER.id, /private assistant/);
    expect(gateway.submits).toHaveLength(1);
  });

  it("answers /status, /budget, /new, /stop, /help locally and forwards /memory to the agent", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    await harness.pairOwner();
    server.sendUserMessage(OWNER, "/status");
    const status = await harness.reply(OWNER.id, /fake-model/);
    expect(status.parseMode).toBe("HTML");
    server.sendUserMessage(OWNER, "/budget");
    await harness.reply(OWNER.id, /Budget today: 1234 \/ 100000 tokens, \$0\.0123 \/ \$2\.00/);
    server.sendUserMessage(OWNER, "/new");
    await harness.reply(OWNER.id, /New session started \(session-new-1\)/);
    server.sendUserMessage(OWNER, "/stop");
    await harness.reply(OWNER.id, /Stopped the running task/);
    server.sendUserMessage(OWNER, "/memory tea");
    await server.waitFor(() => gateway.submits.length === 1, 5000, "forwarded /memory");
    expect(gateway.submits[0]?.text).toBe("/memory tea");
    expect(gateway.stops).toEqual(["owner"]);
    const registered = server.callsTo("setMyCommands")[0]?.payload.commands as { command: string }[];
    expect(registered.map((entry) => entry.command)).toEqual([
      "start",
      "new",
      "status",
      "stop",
      "memory",
      "budget",
      "permissions",
      "schedule",
      "help",
    ]);
  });
});
