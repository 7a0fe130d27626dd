import { afterEach, describe, expect, it } from "vitest";
import { type Harness, MEMBER, OWNER, startHarness } from "./harness.js";

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const GROUP = { id: -100123, type: "supergroup" as const };
const OTHER_GROUP = { id: -555, type: "group" as const };
const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

describe("telegram groups, supergroups and channels", () => {
  it("refuses the owner's message in a group with a short reply, before it reaches the model", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    await harness.pairOwner();
    server.sendGroupMessage(OWNER, OTHER_GROUP, "summarise my notes for everyone");
    const refusal = await harness.reply(OTHER_GROUP.id, /do not work in groups/);
    expect(refusal.text.length).toBeLessThan(200);
    server.sendGroupMessage(OWNER, GROUP, "and here?");
    await harness.reply(GROUP.id, /do not work in groups/);
    expect(gateway.submits).toEqual([]);
    expect(harness.logs.some((entry) => entry.message.includes("group message refused"))).toBe(true);
  });

  it("refuses channel posts", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    server.sendChannelPost(-100777, "hello bot");
    await harness.reply(-100777, /do not work in groups or channels/);
    expect(gateway.submits).toEqual([]);
  });

  it("in an enabled group, answers there but sends approvals and memory receipts to the sender's private chat", async () => {
    harness = await startHarness({ groups: [GROUP.id] });
    const { server, gateway, access } = harness;
    await harness.pairOwner();
    access.approve(MEMBER.id);
    gateway.onSubmit = (_input, task) => {
      task.emit({
        type: "approval-request",
        approvalId: "appr-g",
        summary: "Run: npm test",
        rule: "command.not-readonly",
        expiresAt: inAMinute(),
      });
      task.emit({ type: "memory-receipt", kind: "remembered", text: "likes tea" });
      task.emit({ type: "text-delta", text: "group answer" });
      task.end("group answer");
    };
    server.sendGroupMessage(MEMBER, GROUP, "run the tests");
    await server.waitFor(() => gateway.submits.length === 1, 5000, "the member's group submit");
    await harness.reply(GROUP.id, /group answer/);
    const prompt = await harness.reply(MEMBER.id, /Approval needed/);
    expect(prompt.chatId).toBe(MEMBER.id);
    await harness.reply(MEMBER.id, /Remembered: likes tea/);
    const groupTexts = server.chat(GROUP.id).map((message) => message.text);
    expect(groupTexts.some((text) => /Approval|Remembered|likes tea/.test(text))).toBe(false);
    expect(
      server
        .chat(GROUP.id)
        .every((message) => message.replyMarkup === null || message.replyMarkup === undefined),
    ).toBe(true);
  });

  it("answers commands and pairing codes in an enabled group only in private", async () => {
    harness = await startHarness({ groups: [GROUP.id] });
    const { server, gateway } = harness;
    await harness.pairOwner();
    server.sendGroupMessage(OWNER, GROUP, "/status");
    await harness.reply(GROUP.id, /only in a private chat/);
    expect(server.chat(GROUP.id).some((message) => /fake-model|Budget/i.test(message.text))).toBe(false);
    expect(gateway.submits).toEqual([]);
  });
});
