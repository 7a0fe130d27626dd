import { describe, expect, it } from "vitest";
import { countLines, HeadTailBuffer, truncateHeadTail } from "../../src/tools/output-limits.js";

describe("truncateHeadTail", () => {
  it("leaves short text alone", () => {
    expect(truncateHeadTail("short", { maxChars: 100, hint: "h" })).toEqual({
      text: "short",
      truncated: false,
      omittedChars: 0,
      headChars: 5,
    });
  });

  it("keeps head and tail at line boundaries with a note saying how to get more", () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n");
    const result = truncateHeadTail(text, { maxChars: 500, hint: "Use read_file with startLine/endLine." });
    expect(result.truncated).toBe(true);
    expect(result.text.startsWith("line 0\n")).toBe(true);
    expect(result.text.endsWith("line 999")).toBe(true);
    expect(result.text).toMatch(
      /\[\.\.\. \d+ characters \(\d+ lines\) omitted\. Use read_file with startLine\/endLine\. \.\.\.\]/,
    );
    const [head, tail] = result.text.split(/\n\[\.\.\..*\.\.\.\]\n/);
    expect((head ?? "").length + (tail ?? "").length + result.omittedChars).toBe(text.length);
    expect(text.slice(0, result.headChars)).toBe(head);
  });

  it("passes the head length to a hint function", () => {
    const result = truncateHeadTail("x".repeat(1000), { maxChars: 100, hint: (at) => `offset=${at}` });
    expect(result.text).toContain(`offset=${result.headChars}`);
    expect(result.headChars).toBe(60);
  });
});

describe("HeadTailBuffer", () => {
  it("keeps the first and last bytes and counts what it dropped", () => {
    const buffer = new HeadTailBuffer(4, 4);
    for (const part of ["abc", "defgh", "ijklmnop", "qr"]) buffer.push(Buffer.from(part));
    expect(buffer.totalBytes).toBe(18);
    expect(buffer.text("hint")).toBe("abcd\n[... 10 bytes omitted. hint ...]\nopqr");
  });

  it("returns everything when within limits", () => {
    const buffer = new HeadTailBuffer(4, 4);
    buffer.push(Buffer.from("abcdef"));
    expect(buffer.text("hint")).toBe("abcdef");
  });
});

describe("countLines", () => {
  it.each([
    ["", 0],
    ["a", 1],
    ["a\n", 1],
    ["a\nb", 2],
    ["a\n\n", 2],
  ])("%j has %i lines", (text, n) => {
    expect(countLines(text)).toBe(n);
  });
});
