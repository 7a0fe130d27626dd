import { describe, expect, it } from "vitest";
import {
  describeLastUserMessage,
  finishReasonOf,
  parseScriptedReplies,
  toChunks,
  toolArguments,
} from "./script.js";

describe("toChunks", () => {
  it("splits a string into word-sized chunks that join back exactly", () => {
    const text = "  Hello,  world!\nSecond line ";
    const chunks = toChunks(text);
    expect(chunks.join("")).toBe(text);
    expect(chunks).toEqual(["  ", "Hello,  ", "world!\n", "Second ", "line "]);
  });

  it("keeps a CJK run without spaces as one chunk and an array as given", () => {
    expect(toChunks("你好世界")).toEqual(["你好世界"]);
    expect(toChunks(["a", "", "b"])).toEqual(["a", "", "b"]);
    expect(toChunks(undefined)).toEqual([]);
    expect(toChunks("")).toEqual([]);
  });
});

describe("script defaults", () => {
  it("finishes with tool-calls when there are tool calls, else stop, unless set", () => {
    expect(finishReasonOf({ text: "x" })).toBe("stop");
    expect(finishReasonOf({ toolCalls: [{ name: "t" }] })).toBe("tool-calls");
    expect(finishReasonOf({ toolCalls: [{ name: "t" }], finishReason: "length" })).toBe("length");
  });

  it("serialises tool input, or sends raw arguments verbatim", () => {
    expect(toolArguments({ name: "t", input: { a: [1, "b"] } })).toBe('{"a":[1,"b"]}');
    expect(toolArguments({ name: "t" })).toBe("{}");
    expect(toolArguments({ name: "t", input: { a: 1 }, rawArguments: "{bad" })).toBe("{bad");
  });

  it("describes the last user message on one line, truncated", () => {
    expect(describeLastUserMessage(undefined)).toBe("(no user message)");
    expect(describeLastUserMessage("a\n  b")).toBe('"a b"');
    expect(describeLastUserMessage("x".repeat(300))).toBe(`"${"x".repeat(200)}"…`);
  });
});

describe("parseScriptedReplies", () => {
  it("accepts every reply kind", () => {
    const replies = [
      { text: "a", reasoning: ["b"], usage: { inputTokens: 1, outputTokens: 2 }, finishReason: "length" },
      { toolCalls: [{ id: "c", name: "t", input: { x: 1 } }] },
      { error: { status: 429, message: "slow", retryAfterSeconds: 1 } },
      { hang: true },
      { cutBeforeFinish: true, text: ["x"] },
    ];
    expect(parseScriptedReplies(replies)).toEqual(replies);
  });

  it("rejects bad replies naming the field", () => {
    expect(() => parseScriptedReplies({ text: "x" })).toThrow(/^invalid scripted replies: \(root\)/);
    expect(() => parseScriptedReplies([{ error: { status: 200, message: "x" } }])).toThrow(
      /^invalid scripted replies: 0/,
    );
    expect(() => parseScriptedReplies([{ text: 3 }])).toThrow(/invalid scripted replies/);
    expect(() => parseScriptedReplies([{ hang: false }])).toThrow(/invalid scripted replies/);
    expect(() => parseScriptedReplies([{ txet: "typo" }])).toThrow(/invalid scripted replies/);
  });
});
