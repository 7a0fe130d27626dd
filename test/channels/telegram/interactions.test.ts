import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { visibleText } from "../../fakes/telegram-server.js";
import { type Harness, MEMBER, OWNER, STRANGER, startHarness } from "./harness.js";

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

describe("approvals and questions as buttons", () => {
  it("sends a member's approval to the member, not the owner, and clears the buttons after the answer", async () => {
    harness = await startHarness();
    const { server, gateway, access } = harness;
    await harness.pairOwner();
    access.approve(MEMBER.id);
    gateway.onSubmit = (_input, task) =>
      task.emit({
        type: "approval-request",
        approvalId: "appr-1",
        summary: "Run: rm -rf build/",
        rule: "shell.rm",
        expiresAt: inAMinute(),
      });
    const ownerMessagesBefore = server.chat(OWNER.id).length;
    server.sendUserMessage(MEMBER, "clean the build");
    const prompt = await harness.reply(MEMBER.id, /Approval needed/);
    expect(visibleText(prompt.text)).toContain("Run: rm -rf build/");
    const buttons = prompt.replyMarkup?.inline_keyboard.flat() ?? [];
    expect(buttons.map((button) => button.text)).toEqual(["Allow once", "This session", "Always", "Deny"]);
    expect(server.chat(OWNER.id)).toHaveLength(ownerMessagesBefore);

    // The owner cannot answer for the member.
    const sessionButton = buttons[1]?.callback_data ?? "";
    server.pressButton(OWNER, prompt, sessionButton);
    await server.waitFor(
      () =>
        server
          .callsTo("answerCallbackQuery")
          .find((call) => String(call.payload.text).includes("another person")),
      5000,
      "refusal of the owner's press",
    );
    expect(gateway.approvals).toEqual([]);

    server.pressButton(MEMBER, prompt, sessionButton);
    await server.waitFor(() => gateway.approvals.length === 1, 5000, "the member's answer");
    expect(gateway.approvals[0]).toEqual({
      approvalId: "appr-1",
      decision: "session",
      answeredBy: `telegram:${MEMBER.id}`,
    });
    await server.waitFor(
      () => prompt.replyMarkup === null && /allowed for this session/.test(prompt.text),
      5000,
      "buttons removed",
    );
    // The runtime's own resolved event afterwards changes nothing and fails nothing.
    gateway
      .task("task-1", `telegram:${MEMBER.id}`)
      .emit({ type: "approval-resolved", approvalId: "appr-1", decision: "session", by: "member" });
    expect(harness.logs.filter((entry) => entry.level === "error")).toEqual([]);
  });

  it("removes the buttons when the approval expires or is resolved elsewhere, and ignores the owner's CLI tasks", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    await harness.pairOwner();
    gateway.onSubmit = (_input, task) => {
      task.emit({
        type: "approval-request",
        approvalId: "short",
        summary: "Fetch https://example.com",
        rule: "net",
        expiresAt: new Date(Date.now() + 300).toISOString(),
      });
      task.emit({
        type: "approval-request",
        approvalId: "elsewhere",
        summary: "Write notes.md",
        rule: "fs.write",
        expiresAt: inAMinute(),
      });
    };
    server.sendUserMessage(OWNER, "go");
    const expiring = await harness.reply(OWNER.id, /Fetch https/);
    const other = await harness.reply(OWNER.id, /Write notes/);
    await server.waitFor(
      () => expiring.replyMarkup === null && /expired/.test(expiring.text),
      5000,
      "expiry shown",
    );
    gateway
      .task("task-1", "owner")
      .emit({ type: "approval-resolved", approvalId: "elsewhere", decision: "deny", by: "cli" });
    await server.waitFor(
      () => other.replyMarkup === null && /denied \(cli\)/.test(other.text),
      5000,
      "resolution shown",
    );

    // A task the owner runs from the terminal is not the chat's business.
    const before = server.calls.length;
    const cliTask = gateway.task("cli-task", "owner");
    cliTask.emit({
      type: "approval-request",
      approvalId: "cli",
      summary: "Run: ls",
      rule: "shell",
      expiresAt: inAMinute(),
    });
    cliTask.emit({ type: "text-delta", text: "terminal output" });
    cliTask.end("terminal output");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.calls.slice(before).filter((call) => call.method !== "getUpdates")).toEqual([]);
  });

  it("routes ask_user choices and free-text questions back to the gateway", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    await harness.pairOwner();
    gateway.onSubmit = (_input, task) => {
      task.emit({ type: "question", questionId: "q1", question: "Which color?", choices: ["red", "blue"] });
      task.emit({ type: "question", questionId: "q2", question: "Your name?", choices: [] });
    };
    server.sendUserMessage(OWNER, "ask me things");
    const choice = await harness.reply(OWNER.id, /Which color/);
    await harness.reply(OWNER.id, /Your name/);
    server.pressButton(OWNER, choice, choice.replyMarkup?.inline_keyboard[1]?.[0]?.callback_data ?? "");
    await server.waitFor(() => gateway.answers.length === 1, 5000, "choice answer");
    server.sendUserMessage(OWNER, "Ada");
    await server.waitFor(() => gateway.answers.length === 2, 5000, "free-text answer");
    expect(gateway.answers).toEqual([
      { questionId: "q1", answer: "blue", answeredBy: "owner" },
      { questionId: "q2", answer: "Ada", answeredBy: "owner" },
    ]);
    expect(gateway.submits).toHaveLength(1);
    await server.waitFor(() => choice.replyMarkup === null, 5000, "choice buttons removed");
  });

  it("a stale button (after restart or a second press) is answered and cleared, never forwarded", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    await harness.pairOwner();
    const fake = {
      chatId: OWNER.id,
      messageId: 4242,
      fromBot: true,
      text: "old",
      parseMode: null,
      replyMarkup: null,
      edits: 0,
    };
    server.pressButton(OWNER, fake, "a:o:zzz");
    await server.waitFor(
      () =>
        server
          .callsTo("answerCallbackQuery")
          .find((call) => String(call.payload.text).includes("no longer waiting")),
      5000,
      "stale answer",
    );
    // The fake has no message 4242, so removing its buttons fails: logged, not thrown, not forwarded.
    await server.waitFor(
      () => harness?.logs.some((entry) => entry.message.includes("could not remove stale buttons")),
      5000,
      "the failed cleanup to be logged",
    );
    expect(gateway.approvals).toEqual([]);
  });
});

describe("attachments", () => {
  it("saves a document into the workspace under a safe name and references it in the task", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    await harness.pairOwner();
    server.addFile("doc-1", "documents/file_1.txt", Buffer.from("quarterly numbers"));
    server.sendUserMessage(OWNER, "summarize this", {
      document: { file_id: "doc-1", file_unique_id: "u1", file_name: "../../etc/passwd", file_size: 17 },
    });
    await server.waitFor(() => gateway.submits.length === 1, 5000, "submit with attachment");
    const attachment = gateway.submits[0]?.attachments?.[0];
    expect(attachment?.kind).toBe("document");
    expect(attachment?.path.startsWith(join(harness.workspaceDir, "telegram-uploads"))).toBe(true);
    expect(attachment?.path).not.toContain("..");
    expect(readFileSync(attachment?.path ?? "", "utf8")).toBe("quarterly numbers");
    expect(gateway.submits[0]?.text).toBe("summarize this");
  });

  it("refuses a file over the limit with a clear reply and starts no task", async () => {
    harness = await startHarness({ maxFileBytes: 1024 });
    const { server, gateway } = harness;
    await harness.pairOwner();
    server.addFile("big", "photos/big.jpg", Buffer.alloc(4096, 1));
    server.sendUserMessage(OWNER, "", {
      photo: [{ file_id: "big", file_unique_id: "ubig", width: 10, height: 10 }],
    });
    const refusal = await harness.reply(OWNER.id, /could not save/);
    expect(refusal.text).toContain("the file is 4 KB; the limit is 1 KB");
    expect(gateway.submits).toEqual([]);
  });
});

describe("routing between the terminal and the chat", () => {
  it("does not adopt the owner's running terminal task while a chat message is being submitted", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    await harness.pairOwner();
    const cliTask = gateway.task("cli-running", "owner");
    cliTask.emit({ type: "text-delta", text: "terminal work " });
    gateway.onSubmit = (_input, task) => {
      cliTask.emit({ type: "text-delta", text: "more terminal work" });
      cliTask.end("terminal done");
      setTimeout(() => task.end("chat answer"), 5);
    };
    server.sendUserMessage(OWNER, "hello from the phone");
    await harness.reply(OWNER.id, /chat answer/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.chat(OWNER.id).some((message) => /terminal/.test(message.text))).toBe(false);
  });

  it("a photo is saved and submitted with its caption; a free-text question survives a photo", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    await harness.pairOwner();
    server.addFile("p1", "photos/file_7.jpg", Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
    server.sendUserMessage(OWNER, "what is this?", {
      photo: [
        { file_id: "p0", file_unique_id: "small", width: 1, height: 1 },
        { file_id: "p1", file_unique_id: "big", width: 100, height: 100, file_size: 4 },
      ],
    });
    await server.waitFor(() => gateway.submits.length === 1, 5000, "photo submit");
    expect(gateway.submits[0]?.attachments).toEqual([
      {
        kind: "photo",
        name: "photo-big.jpg",
        path: expect.stringMatching(/telegram-uploads\/.*photo-big\.jpg$/),
      },
    ]);
    expect(readFileSync(gateway.submits[0]?.attachments?.[0]?.path ?? "").length).toBe(4);
  });

  it("a stranger's button press is refused and reaches nothing", async () => {
    harness = await startHarness();
    const { server, gateway } = harness;
    await harness.pairOwner();
    gateway.onSubmit = (_input, task) =>
      task.emit({
        type: "approval-request",
        approvalId: "a1",
        summary: "Run: ls",
        rule: "shell",
        expiresAt: inAMinute(),
      });
    server.sendUserMessage(OWNER, "go");
    const prompt = await harness.reply(OWNER.id, /Approval needed/);
    server.pressButton(STRANGER, prompt, prompt.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data ?? "");
    await server.waitFor(
      () =>
        server
          .callsTo("answerCallbackQuery")
          .find((call) => String(call.payload.text).includes("not allowed")),
      5000,
      "the stranger's refusal",
    );
    expect(gateway.approvals).toEqual([]);
    expect(prompt.replyMarkup).not.toBeNull();
  });
});
