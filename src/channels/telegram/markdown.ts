/**
 * Markdown (as models write it) to the HTML subset Telegram accepts: b, i, s, code, pre, a.
 * Everything that is not markup is escaped, and the result is checked for balanced tags: when the
 * model's markers overlap (`**a *b** c*`), the text falls back to escaped-only instead of risking a 400.
 */

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ESCAPES[char] ?? char);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;

export function renderMarkdown(markdown: string): string {
  const out: string[] = [];
  const lines = markdown.split("\n");
  let index = 0;
  let prose: string[] = [];
  const flushProse = () => {
    if (prose.length > 0) out.push(renderProse(prose.join("\n")));
    prose = [];
  };
  while (index < lines.length) {
    const line = lines[index] ?? "";
    const fence = FENCE.exec(line);
    if (fence === null) {
      prose.push(line);
      index++;
      continue;
    }
    flushProse();
    const marker = fence[1] ?? "```";
    const language = fence[2] ?? "";
    const body: string[] = [];
    index++;
    // An unclosed fence (a reply still streaming) runs to the end of the text.
    while (index < lines.length && !(lines[index] ?? "").trimStart().startsWith(marker)) {
      body.push(lines[index] ?? "");
      index++;
    }
    index++;
    const code = escapeHtml(body.join("\n"));
    out.push(
      language === ""
        ? `<pre>${code}</pre>`
        : `<pre><code class="language-${escapeHtml(language)}">${code}</code></pre>`,
    );
  }
  flushProse();
  return out.join("\n");
}

function renderProse(text: string): string {
  const rendered = text
    .split("\n")
    .map((line) => {
      const heading = /^ {0,3}#{1,6}\s+(.*)$/.exec(line);
      if (heading) return `**${heading[1] ?? ""}**`;
      return line.replace(/^(\s*)[-*+]\s+/, "$1• ");
    })
    .join("\n");
  const html = renderInline(rendered);
  return tagsBalanced(html) ? html : renderInline(rendered, { formatting: false });
}

function renderInline(text: string, options: { formatting: boolean } = { formatting: true }): string {
  // Code spans and links are cut out first so nothing inside them is read as emphasis.
  const held: string[] = [];
  const hold = (html: string) => {
    held.push(html);
    return `\uE000${held.length - 1}\uE000`;
  };
  let work = text.replace(/\uE000/g, "");
  work = work.replace(/`([^`\n]+)`/g, (_, code: string) => hold(`<code>${escapeHtml(code)}</code>`));
  work = work.replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, (whole, label: string, url: string) => {
    if (!/^(https?:\/\/|tg:\/\/|mailto:)/i.test(url)) return whole;
    return hold(`<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`);
  });
  work = escapeHtml(work);
  if (options.formatting) {
    work = work
      .replace(/\*\*(?=\S)([^\n]*?\S)\*\*/g, "<b>$1</b>")
      .replace(/(^|[^\w])__(?=\S)([^\n]*?\S)__(?!\w)/g, "$1<b>$2</b>")
      .replace(/~~(?=\S)([^\n]*?\S)~~/g, "<s>$1</s>")
      .replace(/(^|[^*\w])\*([^\s*](?:[^*\n]*?[^\s*])?)\*(?![*\w])/g, "$1<i>$2</i>")
      .replace(/(^|[^\w])_([^\s_](?:[^_\n]*?[^\s_])?)_(?!\w)/g, "$1<i>$2</i>");
  }
  return work.replace(/\uE000(\d+)\uE000/g, (_, at: string) => held[Number(at)] ?? "");
}

/** True when every tag closes in order; Telegram rejects overlapping tags. */
export function tagsBalanced(html: string): boolean {
  const stack: string[] = [];
  for (const match of html.matchAll(/<(\/?)([a-z]+)[^>]*>/g)) {
    const [, closing, name] = match;
    if (name === undefined) return false;
    if (closing === "") stack.push(name);
    else if (stack.pop() !== name) return false;
  }
  return stack.length === 0;
}
