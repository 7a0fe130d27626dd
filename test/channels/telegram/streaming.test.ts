import { afterEach, describe, expect, it } from "vitest";
import { renderMarkdown } from "../../../src/channels/telegram/markdown.js";
import { visibleText } from "../../fakes/telegram-server.js";
import { type Harness, OWNER, startHarness } from "./harness.js";

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

function paragraph(index: number): string {
  return `Paragraph ${index}: ${"lorem ipsum dolor sit amet ".repeat(12).trim()}.`;
}

const CODE = `\`\`\`ts\n${Array.from({ length: 40 }, (_, index) => `const value${index} = ${index} * 2; // line ${index}`).join("\n")}\n\`\`\``;

function longAnswer(): string {
  const pieces: string[] = [];
  for (let index = 0; index < 36; index++) {
    pieces.push(paragraph(index));
    if (index === 14) pieces.push(CODE);
  }
  return pieces.join("\n\n");
}

const squash = (text: string) => text.replace(/```\w*/g, "").replace(/\s+/g, "");

/** Emits `text` in chunks of `size` characters every `everyMs`, then ends the task. */
function streamOut(harness: Harness, text: string, size: number, everyMs: number): void {
  harness.gateway.onSubmit = (_input, task) => {
    let offset = 0;
    const timer = setInterval(() => {
      if (offset >= text.length) {
        clearInterval(timer);
        task.end(text);
        return;
      }
      task.emit({ type: "text-delta", text: text.slice(offset, offset + size) });
      offset += size;
    }, everyMs);
  };
}

describe("streamed replies", () => {
  it("splits a long streamed reply at 4096 on paragraph boundaries, keeps the code block whole, bounds edits", async () => {
    harness = await startHarness({ editIntervalMs: 250 });
    const { server } = harness;
    await harness.pairOwner();
    const answer = longAnswer();
    expect(answer.length).toBeGreaterThan(8192);
    const before = server.chat(OWNER.id).length;
    streamOut(harness, answer, 120, 10);
    const started = Date.now();
    server.sendUserMessage(OWNER, "write me an essay");
    await server.waitFor(
      () =>
        harness?.database
          .prepare("SELECT COUNT(*) AS n FROM telegram_deliveries WHERE status = 'sent'")
          .get() as { n: number },
      15_000,
    );
    await server.waitFor(
      () => {
        const parts = server.chat(OWNER.id).slice(before);
        return (
          squash(parts.map((message) => visibleText(message.text)).join("")) ===
          squash(visibleText(renderMarkdown(answer)))
        );
      },
      15_000,
      "the whole answer to be visible",
    );
    const elapsed = Date.now() - started;

    const parts = server.chat(OWNER.id).slice(before);
    expect(parts.length).toBeGreaterThanOrEqual(Math.ceil(answer.length / 4096));
    expect(parts.length).toBeLessThanOrEqual(Math.ceil(answer.length / 4096) + 1);
    for (const part of parts) {
      expect(visibleText(part.text).length).toBeLessThanOrEqual(4096);
      expect(part.parseMode).toBe("HTML");
      // Every part starts at a paragraph: never in the middle of a sentence.
      expect(visibleText(part.text)).toMatch(/^(Paragraph \d+:|const value0)/);
    }
    const codeHolders = parts.filter(
      (part) => part.text.includes("<pre>") || part.text.includes("<pre><code"),
    );
    expect(codeHolders).toHaveLength(1);
    expect(visibleText(codeHolders[0]?.text ?? "")).toContain("const value0 = 0");
    expect(visibleText(codeHolders[0]?.text ?? "")).toContain("const value39 = 39");

    const writes = server.calls.filter(
      (call) => (call.method === "editMessageText" || call.method === "sendMessage") && call.at >= started,
    );
    // One write per interval while streaming, plus the part cuts and the final edit.
    expect(writes.length).toBeLessThanOrEqual(Math.ceil(elapsed / 250) + parts.length * 2 + 2);
    const edits = server.callsTo("editMessageText").filter((call) => call.at >= started);
    expect(edits.length).toBeGreaterThan(2);
  });

  it("closes and re-opens a code fence when one code block alone exceeds the limit", async () => {
    harness = await startHarness();
    const { server } = harness;
    await harness.pairOwner();
    const lines = Array.from({ length: 300 }, (_, index) => `print("line ${index} ${"x".repeat(10)}")`);
    const answer = `Here is the script:\n\n\`\`\`python\n${lines.join("\n")}\n\`\`\`\n\nRun it with python.`;
    const before = server.chat(OWNER.id).length;
    harness.gateway.onSubmit = (_input, task) => setTimeout(() => task.end(answer), 10);
    server.sendUserMessage(OWNER, "script please");
    await harness.reply(OWNER.id, /Run it with python/, 10_000);
    const parts = server.chat(OWNER.id).slice(before);
    expect(parts.length).toBeGreaterThanOrEqual(2);
    for (const part of parts) {
      expect(visibleText(part.text).length).toBeLessThanOrEqual(4096);
      expect(part.text).toContain('<pre><code class="language-python">');
    }
    const shown = parts.map((part) => visibleText(part.text)).join("\n");
    for (const index of [0, 150, 299]) expect(shown).toContain(`print("line ${index} `);
  });

  it("falls back to plain text when Telegram rejects the HTML", async () => {
    harness = await startHarness();
    const { server } = harness;
    await harness.pairOwner();
    server.rejectHtml = true;
    const answer = "**Bold** claim: 3 < 4 & `code` [link](https://example.com)";
    harness.gateway.onSubmit = (_input, task) => setTimeout(() => task.end(answer), 10);
    server.sendUserMessage(OWNER, "markup");
    const message = await harness.reply(OWNER.id, /Bold/);
    expect(message.parseMode).toBeNull();
    expect(message.text).toBe(answer);
    expect(
      harness.logs.some((entry) => entry.level === "warn" && entry.message.includes("rejected HTML")),
    ).toBe(true);
    const rejected = server
      .callsTo("sendMessage")
      .filter((call) => call.payload.parse_mode === "HTML" && String(call.payload.text).includes("Bold"));
    expect(rejected).toHaveLength(1);
  });

  it("shows paused and failed outcomes with their reason, and memory receipts", async () => {
    harness = await startHarness();
    const { server } = harness;
    await harness.pairOwner();
    harness.gateway.onSubmit = (_input, task) =>
      setTimeout(() => {
        task.emit({ type: "memory-receipt", kind: "remembered", text: "you like tea" });
        task.emit({
          type: "task-end",
          outcome: "paused",
          endCause: "steps-exhausted",
          text: "I got halfway.",
          reason: "the step budget ran out",
          usage: { inputTokens: 1, outputTokens: 1, costUsd: 0 },
          filesChanged: [{ path: "a.ts", added: 3, removed: 1 }],
          verification: [],
        });
      }, 10);
    server.sendUserMessage(OWNER, "do the thing");
    const message = await harness.reply(OWNER.id, /halfway/);
    const text = visibleText(message.text);
    expect(text).toContain("Remembered: you like tea");
    expect(text).toContain("Files: a.ts +3 −1");
    expect(text).toContain("Paused (steps-exhausted): the step budget ran out");
  });
});
