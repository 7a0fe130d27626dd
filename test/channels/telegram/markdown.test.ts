import { describe, expect, it } from "vitest";
import { escapeHtml, renderMarkdown, tagsBalanced } from "../../../src/channels/telegram/markdown.js";

describe("renderMarkdown to Telegram HTML", () => {
  it("escapes <, > and & everywhere, including inside code", () => {
    expect(renderMarkdown("a < b && c > d")).toBe("a &lt; b &amp;&amp; c &gt; d");
    expect(renderMarkdown("`<script>`")).toBe("<code>&lt;script&gt;</code>");
    expect(renderMarkdown("```html\n<b>&amp;</b>\n```")).toBe(
      '<pre><code class="language-html">&lt;b&gt;&amp;amp;&lt;/b&gt;</code></pre>',
    );
  });

  it("renders bold, italic, strike, code, headings, bullets and links", () => {
    expect(renderMarkdown("**bold** and *it* and _also_ and ~~gone~~")).toBe(
      "<b>bold</b> and <i>it</i> and <i>also</i> and <s>gone</s>",
    );
    expect(renderMarkdown("# Title\n- one\n* two")).toBe("<b>Title</b>\n• one\n• two");
    expect(renderMarkdown('[docs](https://example.com/?a=1&b="2")')).toBe(
      '<a href="https://example.com/?a=1&amp;b=&quot;2&quot;">docs</a>',
    );
  });

  it("renders one-letter emphasis", () => {
    expect(renderMarkdown("*a* and _b_ and **c**")).toBe("<i>a</i> and <i>b</i> and <b>c</b>");
  });

  it("does not turn snake_case or arithmetic into italics, nor unsafe links into anchors", () => {
    expect(renderMarkdown("use snake_case_names and 2 * 3 * 4")).toBe("use snake_case_names and 2 * 3 * 4");
    expect(renderMarkdown("[x](javascript:alert(1))")).toBe("[x](javascript:alert(1))");
  });

  it("renders an unclosed fence (a reply still streaming) to the end", () => {
    expect(renderMarkdown("text\n```\nconst a = 1;")).toBe("text\n<pre>const a = 1;</pre>");
  });

  it("falls back to escaped text when markers overlap instead of producing broken tags", () => {
    const html = renderMarkdown("**a *b** c*");
    expect(tagsBalanced(html)).toBe(true);
    expect(html).not.toContain("<b>");
  });

  it("escapeHtml escapes quotes for attributes", () => {
    expect(escapeHtml(`"<&>"`)).toBe("&quot;&lt;&amp;&gt;&quot;");
  });
});
