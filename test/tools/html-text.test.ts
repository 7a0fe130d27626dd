import { describe, expect, it } from "vitest";
import { htmlToText, htmlToTextSync, INLINE_HTML_CHARS } from "../../src/tools/html-text.js";

const para =
  "<div><p>Some <b>bold</b> text and a <a href='/l'>link</a>.</p><script>var SCRIPT=1</script></div>\n";
const bigHtml = `<html><head><title>t</title></head><body>${para.repeat(Math.ceil(600_000 / para.length))}</body></html>`;

describe("htmlToText", () => {
  it("converts small pages inline and drops scripts, styles and images", async () => {
    const text = await htmlToText(
      "<style>p{}</style><h2>Title</h2><p>Hello <img src=x alt=pic> world</p>",
      new AbortController().signal,
    );
    expect(text).toBe("TITLE\n\nHello world");
  });

  it("converts a large page in a worker with the same result, while the event loop keeps turning", async () => {
    expect(bigHtml.length).toBeGreaterThan(INLINE_HTML_CHARS);
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 5);
    let text: string;
    const started = performance.now();
    try {
      text = await htmlToText(bigHtml, new AbortController().signal);
    } finally {
      clearInterval(timer);
    }
    const took = performance.now() - started;
    expect(text).toBe(htmlToTextSync(bigHtml));
    expect(text).not.toContain("SCRIPT");
    expect(text.startsWith("Some bold text and a link [/l].")).toBe(true);
    // Inline, the loop would be blocked for the whole conversion; in a worker only briefly.
    expect(longestGap).toBeLessThan(Math.max(100, took / 2));
  });

  it("stops the worker when aborted", async () => {
    const controller = new AbortController();
    const pending = htmlToText(bigHtml, controller.signal);
    setTimeout(() => controller.abort(new Error("stop now")), 20);
    await expect(pending).rejects.toThrow(/stop now/);
  });
});
