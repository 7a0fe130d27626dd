import { describe, expect, it } from "vitest";
import { splitMarkdown } from "../../../src/channels/telegram/split.js";

const fences = (text: string) => (text.match(/^```/gm) ?? []).length;

describe("splitMarkdown", () => {
  it("leaves a short text alone, exactly", () => {
    expect(splitMarkdown("hello\n\nworld ", 100)).toEqual(["hello\n\nworld "]);
  });

  it("cuts at the last paragraph boundary that fits", () => {
    const a = "a".repeat(60);
    const b = "b".repeat(60);
    const c = "c".repeat(60);
    expect(splitMarkdown(`${a}\n\n${b}\n\n${c}`, 130)).toEqual([`${a}\n\n${b}`, c]);
  });

  it("moves a whole code block to the next part instead of cutting it", () => {
    const prose = "word ".repeat(30).trim();
    const code = "```js\nconst a = 1;\nconst b = 2;\n```";
    const parts = splitMarkdown(`${prose}\n\n${code}\n\nafter`, 180);
    expect(parts[0]).toBe(prose);
    expect(parts[1]).toBe(`${code}\n\nafter`);
  });

  it("closes and re-opens the fence with its language when a block alone is too long", () => {
    const body = Array.from({ length: 40 }, (_, index) => `line ${index}`).join("\n");
    const parts = splitMarkdown(`\`\`\`python\n${body}\n\`\`\``, 120);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(120);
      expect(part.startsWith("```python\n")).toBe(true);
      expect(fences(part) % 2).toBe(0);
    }
    const lines = parts.flatMap((part) => part.split("\n").filter((line) => !line.startsWith("```")));
    expect(lines).toEqual(body.split("\n"));
  });

  it("hard-cuts one enormous line at a space, never splitting a surrogate pair", () => {
    const words = "😀word ".repeat(100);
    const parts = splitMarkdown(words, 101);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(101);
      expect(/[\uD800-\uDBFF]$/.test(part)).toBe(false);
    }
    expect(parts.join(" ").replace(/\s+/g, "")).toBe(words.replace(/\s+/g, ""));
    const noSpaces = "😀".repeat(200);
    const hard = splitMarkdown(noSpaces, 101);
    expect(hard.join("")).toBe(noSpaces);
    for (const part of hard) expect(/^[\uDC00-\uDFFF]/.test(part)).toBe(false);
  });

  it("keeps every character of a large mixed document within the limit", () => {
    const pieces: string[] = [];
    for (let index = 0; index < 200; index++) {
      pieces.push(
        index % 7 === 0
          ? `\`\`\`\n${"code line\n".repeat(index % 13)}\`\`\``
          : `para ${index} ${"text ".repeat(index % 50)}`,
      );
    }
    const text = pieces.join("\n\n");
    const parts = splitMarkdown(text, 4096);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(4096);
      expect(fences(part) % 2).toBe(0);
    }
    expect(parts.join("").replace(/\s+/g, "")).toBe(text.replace(/\s+/g, ""));
  });

  it("refuses a limit too small to hold a re-opened fence", () => {
    expect(() => splitMarkdown("abc", 10)).toThrow(/too small/);
  });
});
