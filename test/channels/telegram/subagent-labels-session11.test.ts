import { afterEach, describe, expect, it } from "vitest";
import { visibleText } from "../../fakes/telegram-server.js";
import { type Harness, OWNER, startHarness } from "./harness.js";

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe("sub-agent events on Telegram (session 11)", () => {
  it("labels a sub-agent's approval, warning and failed end, never streams its text as an answer", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    await harness.pairOwner();
    gateway.onSubmit = (_input, task) => {
      const child = gateway.task(`${task.taskId}/child-1`, task.userKey);
      child.emit({ type: "task-start", input: "[sub-agent child-1] count the files" });
      child.emit({ type: "text-delta", text: "CHILD-CHATTER all files counted" });
      child.emit({
        type: "approval-request",
        approvalId: "approval-child-1",
        summary: "run `wc -l notes.txt`",
        rule: "shell: wc",
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      });
      child.emit({ type: "notice", level: "warn", message: "no output for 30 s; still waiting" });
      child.emit({
        type: "task-end",
        outcome: "failed",
        endCause: "steps-exhausted",
        text: "CHILD-CHATTER done",
        reason: "its token budget ran out",
        usage: { inputTokens: 1, outputTokens: 1, costUsd: 0 },
        filesChanged: [],
        verification: [],
      });
      task.emit({ type: "text-delta", text: "The sub-agent did not finish; nothing was counted." });
      task.end("The sub-agent did not finish; nothing was counted.");
    };
    server.sendUserMessage(OWNER, "count the files with a helper");

    const approval = await harness.reply(OWNER.id, /Approval needed/);
    expect(visibleText(approval.text)).toContain("sub-agent child-1");
    const warning = await harness.reply(OWNER.id, /no output for 30 s/);
    expect(warning.text).toContain("sub-agent child-1");
    const ended = await harness.reply(OWNER.id, /sub-agent child-1 failed/);
    expect(ended.text).toContain("its token budget ran out");
    expect(ended.text).not.toMatch(/completed|responded/);
    await harness.reply(OWNER.id, /nothing was counted/);

    const texts = server.chat(OWNER.id).map((message) => visibleText(message.text));
    expect(texts.filter((text) => text.includes("CHILD-CHATTER"))).toEqual([]);
    // One final answer for the task, not a second one for the child.
    expect(texts.filter((text) => text.includes("nothing was counted"))).toHaveLength(1);
  });
});
