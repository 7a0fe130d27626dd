import { describe, expect, it } from "vitest";
import { boundHistory } from "../../src/agent/history.js";
import type { StoredMessage } from "../../src/storage/transcripts.js";

const message = (id: number, role: "user" | "assistant" | "tool", tokens: number): StoredMessage => ({
  id,
  taskId: null,
  tokenEstimate: tokens,
  message:
    role === "tool"
      ? {
          role,
          content: [
            {
              type: "tool-result",
              toolCallId: `c${id}`,
              toolName: "t",
              output: { type: "text", value: "x" },
            },
          ],
        }
      : { role, content: `m${id}` },
});

describe("history bounded by tokens", () => {
  it("keeps the newest messages that fit, starting at a user message", () => {
    const history = [
      message(1, "user", 50),
      message(2, "assistant", 50),
      message(3, "user", 10),
      message(4, "assistant", 10),
      message(5, "tool", 10),
      message(6, "assistant", 10),
    ];
    expect(boundHistory(history, 45).map((entry) => entry.id)).toEqual([3, 4, 5, 6]);
    expect(boundHistory(history, 1000).map((entry) => entry.id)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("never starts with an orphaned tool result", () => {
    const history = [
      message(1, "user", 10),
      message(2, "assistant", 10),
      message(3, "tool", 10),
      message(4, "assistant", 10),
    ];
    const window = boundHistory(history, 25);
    expect(window[0]?.message.role).toBe("user");
  });

  it("bounds by tokens, not by message count", () => {
    const many = Array.from({ length: 200 }, (_, index) =>
      message(index, index % 2 === 0 ? "user" : "assistant", 1),
    );
    expect(boundHistory(many, 1000)).toHaveLength(200);
    const few = [message(1, "user", 400), message(2, "assistant", 400), message(3, "user", 400)];
    expect(boundHistory(few, 500).map((entry) => entry.id)).toEqual([3]);
  });
});
