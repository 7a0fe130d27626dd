import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TelegramAccess } from "../../src/channels/telegram/access.js";
import { openDatabase } from "../../src/storage/database.js";
import { daemonHome, waitFor } from "../daemon/daemon-helpers.js";
import { FAKE_TOKEN } from "../fakes/telegram-server.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";
import { factExtraction, noMemories } from "../helpers/memory-facts.js";

const fixture = useDaemonFixture({ telegram: true, stopDaemon: true });

const OWNER = { id: 4242, username: "alice" };
const MEMBER = { id: 5151, username: "bob" };
const GROUP = { id: -100123, type: "supergroup" as const };

const judged = (verdict: string) =>
  JSON.stringify({ judgements: [{ id: 1, verdict, reason: "scripted judge" }] });

interface Listed {
  memories: { id: number; text: string }[];
}
interface Shown {
  memory: { supersededAt: string | null; confirmations: number; contradictions: number };
}

describe("person scopes through the daemon and Telegram (session 11)", () => {
  it("a group member's 'I live in Paris' and 'I moved to Berlin' neither confirm nor supersede the owner's Paris, and no fact crosses into the other's prompt", {
    timeout: 120_000,
  }, async () => {
    fixture.current = daemonHome(fixture.server.url, {
      TELEGRAM_BOT_TOKEN: FAKE_TOKEN,
      MERCURY_TELEGRAM_API_ROOT: fixture.telegram.apiRoot,
    });
    const daemon = fixture.current;
    writeFileSync(
      join(daemon.home, "config.yaml"),
      `retry:\n  attempts: 3\n  baseDelayMs: 10\n  maxDelayMs: 50\ntelegram:\n  enabled: true\n  groups: [${GROUP.id}]\n`,
    );
    const database = openDatabase(join(daemon.home, "mercury.db"));
    try {
      const access = new TelegramAccess(database);
      access.redeemPairingCode(access.createPairingCode().code, OWNER.id, OWNER.username);
      access.approve(MEMBER.id, MEMBER.username);
    } finally {
      database.close();
    }
    expect((await daemon.cli(["start"])).code).toBe(0);
    const listFor = async (user: string) =>
      (JSON.parse((await daemon.cli(["memory", "list", "--json", "--user", user])).stdout) as Listed)
        .memories;
    const memberKey = `telegram:${MEMBER.id}`;
    // Waits read the database (a CLI spawn per poll would compete with the daemon for the CPU).
    const current = (user: string) =>
      daemon
        .query<{ text: string }>(
          "SELECT text FROM memories WHERE user_key = ? AND superseded_at IS NULL",
          user,
        )
        .map((row) => row.text);

    // The owner, in private: where they live and an allergy (a profile fact, in every prompt).
    fixture.server.push({ text: "Noted, Alice." });
    fixture.server.push({
      text: JSON.stringify({
        memories: [
          {
            kind: "fact",
            text: "The user lives in Paris.",
            evidence: "user-stated",
            importance: "high",
            sourceQuote: "I live in Paris",
          },
          {
            kind: "fact",
            text: "The user is allergic to penicillin.",
            evidence: "user-stated",
            importance: "high",
            sourceQuote: "I am allergic to penicillin",
          },
        ],
      }),
    });
    // A model is configured, so the judge compares the second fact with the first (scripted: different).
    fixture.server.push({ text: judged("different") });
    fixture.telegram.sendUserMessage(OWNER, "I live in Paris and I am allergic to penicillin");
    await waitFor(() => current("owner").length === 2, 30_000, "the owner's memories");

    // The member, in the group: the owner's very words (a confirmation if scopes leaked), then a move
    // (a supersession if they leaked).
    fixture.server.push({ text: "Nice, Bob." });
    fixture.server.push({ text: factExtraction("The user lives in Paris.", "I live in Paris") });
    fixture.telegram.sendGroupMessage(MEMBER, GROUP, "I live in Paris");
    await waitFor(() => current(memberKey).length === 1, 30_000, "the member's first memory");
    fixture.server.push({ text: "Berlin, nice." });
    fixture.server.push({
      text: factExtraction("The user moved to Berlin last month.", "I moved to Berlin last month"),
    });
    // The judge sees the member's own Paris only (scripted: update).
    fixture.server.push({ text: judged("update") });
    fixture.telegram.sendGroupMessage(MEMBER, GROUP, "I moved to Berlin last month");
    await waitFor(
      () => current(memberKey).some((text) => text.includes("Berlin")),
      30_000,
      "the member's move",
    );

    // Two judge calls, each with one stored statement of the speaker's own scope: the member's facts
    // never met the owner's.
    const judgeCalls = fixture.server
      .chatRequests()
      .map((request) => JSON.stringify(request.body))
      .filter((body) => body.includes("You compare a NEW statement"));
    expect(judgeCalls).toHaveLength(2);
    expect(judgeCalls[0]).toContain("NEW: The user is allergic to penicillin.");
    expect(judgeCalls[1]).toContain("NEW: The user moved to Berlin last month.");
    for (const call of judgeCalls) expect(call).not.toContain("[2]");
    const owners = await listFor("owner");
    expect(owners.map((memory) => memory.text).sort()).toEqual([
      "The user is allergic to penicillin.",
      "The user lives in Paris.",
    ]);
    for (const memory of owners) {
      const shown = JSON.parse(
        (await daemon.cli(["memory", "show", "--json", String(memory.id)])).stdout,
      ) as Shown;
      expect(shown.memory).toMatchObject({ supersededAt: null, confirmations: 0, contradictions: 0 });
    }
    expect((await listFor(memberKey)).map((memory) => memory.text)).toEqual([
      "The user moved to Berlin last month.",
    ]);

    // Each one's next prompt holds their own facts only.
    const promptOf = async (send: () => void, replyText: string, chatId: number) => {
      const before = fixture.server.chatRequests().length;
      fixture.server.push({ text: replyText });
      fixture.server.push({ text: noMemories });
      send();
      await waitFor(
        () =>
          fixture.telegram
            .chat(chatId)
            .some((message) => message.fromBot && message.text.includes(replyText)),
        30_000,
        `the reply "${replyText}"`,
      );
      // The messages only: the tools' descriptions name "Europe/Berlin" as a time zone example.
      const body = fixture.server.chatRequests()[before]?.body as { messages?: unknown } | undefined;
      return JSON.stringify(body?.messages ?? "");
    };
    const ownerPrompt = await promptOf(
      () => fixture.telegram.sendUserMessage(OWNER, "Which antibiotic is fine for me, and where do I live?"),
      "Owner answer.",
      OWNER.id,
    );
    expect(ownerPrompt).toContain("Paris");
    expect(ownerPrompt).toContain("penicillin");
    expect(ownerPrompt).not.toContain("Berlin");
    const memberPrompt = await promptOf(
      () => fixture.telegram.sendUserMessage(MEMBER, "Which antibiotic is fine for me?"),
      "Member answer.",
      MEMBER.id,
    );
    expect(memberPrompt).not.toContain("penicillin");
    expect(memberPrompt).toContain("Berlin");
  });
});
