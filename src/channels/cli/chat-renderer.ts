import { Marked, type MarkedExtension } from "marked";
import { markedTerminal } from "marked-terminal";
import type { AgentEvent } from "../../agent/events.js";
import { relativeTime } from "./relative-time.js";
import { banner, reasonShownAbove } from "./renderer.js";
import { type ChatScreen, paint } from "./screen.js";
import { subagentLabel, subagentView } from "./subagent-events.js";
import { toolActivity, toolLine } from "./tool-line.js";

const identity = (text: string) => text;

/** Markdown for the terminal; without colours every style is plain text (NO_COLOR, not a TTY). */
function markdownRenderer(colors: boolean, width: number): (text: string) => string {
  const plain = colors
    ? {}
    : Object.fromEntries(
        [
          "code",
          "blockquote",
          "html",
          "heading",
          "firstHeading",
          "hr",
          "listitem",
          "table",
          "paragraph",
          "strong",
          "em",
          "codespan",
          "del",
          "link",
          "href",
        ].map((name) => [name, identity]),
      );
  // @types/marked-terminal is written against an older marked; the extension object is what marked 18 takes.
  const extension = markedTerminal({
    ...plain,
    width,
    // Paragraphs wrap between words at the window's width (a narrow window split words mid-way).
    reflowText: true,
    emoji: false,
    // With colour a heading is bold and coloured; without, the "#" is what marks it as a heading.
    showSectionPrefix: !colors,
  }) as unknown as MarkedExtension;
  const marked = new Marked(extension);
  return (text) => {
    const rendered = marked.parse(text, { async: false });
    return typeof rendered === "string" ? rendered.replace(/\n+$/, "") : text;
  };
}

/** Index just after the last blank line that is outside a code fence: everything before is final. */
function completeBlocksEnd(text: string): number {
  let end = 0;
  let from = 0;
  for (;;) {
    const blank = text.indexOf("\n\n", from);
    if (blank < 0) return end;
    const fences = text.slice(0, blank).match(/^\s*(```|~~~)/gm)?.length ?? 0;
    if (fences % 2 === 0) end = blank + 2;
    from = blank + 2;
  }
}

/**
 * The interactive chat's view of the event stream: answers rendered as Markdown a block at a time,
 * one line per tool call with its result, notices in colours that mean something (errors red,
 * warnings yellow), approvals with a relative expiry, and the spinner's current activity.
 */
export function createChatRenderer(
  screen: ChatScreen,
  options: { colors: boolean; showReceipts: boolean; width: () => number },
) {
  const renderers = new Map<number, (text: string) => string>();
  /** Markdown at the window's current width (at most 100 columns), so a resize applies to what follows. */
  const render = (markdown: string): string => {
    const width = Math.max(20, Math.min(options.width(), 100));
    let renderer = renderers.get(width);
    if (renderer === undefined) {
      renderer = markdownRenderer(options.colors, width);
      renderers.set(width, renderer);
    }
    return renderer(markdown);
  };
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const shownNotices = new Set<string>();
  let text = "";
  /**
   * Blocks of this answer already printed: the next one is set off by a blank line, as Markdown
   * renders paragraphs. Printed a block at a time, a streamed answer's paragraphs otherwise ran
   * together, while the same answer arriving at once had them apart.
   */
  let blocksPrinted = false;
  const flush = (all: boolean) => {
    const end = all ? text.length : completeBlocksEnd(text);
    if (end === 0 || text.slice(0, end).trim() === "") {
      if (all) text = "";
      return;
    }
    screen.print(`${blocksPrinted ? "\n" : ""}${render(text.slice(0, end))}`);
    blocksPrinted = true;
    text = text.slice(end);
  };
  /** Flushes what is left of the answer; whatever prints next is not one of its paragraphs. */
  const endAnswer = () => {
    flush(true);
    blocksPrinted = false;
  };
  const color = (code: number, line: string) => paint(code, line, options.colors);
  return (event: AgentEvent): void => {
    const child = subagentLabel(event);
    if (child !== null) {
      const view = subagentView(event, child);
      if (view.kind === "hidden") {
        // The parent is still at work (its delegate_task call): the spinner says whose step it is.
        if (event.type === "step-start" || event.type === "text-delta") screen.busy(`${child} thinking`);
        return;
      }
      if (view.kind === "line") {
        screen.print(color(view.tone, view.text));
        return;
      }
      if (view.kind === "tool-result" && event.type === "tool-result") {
        const call = calls.get(event.callId);
        calls.delete(event.callId);
        screen.print(
          color(
            event.ok ? 32 : 31,
            `${view.prefix}${toolLine(event.toolName, call?.input, event.ok, event.output)}`,
          ),
        );
        screen.busy(`${child} thinking`);
        return;
      }
    }
    switch (event.type) {
      case "task-start":
      case "step-start":
        screen.busy("thinking");
        break;
      case "text-delta":
        text += event.text;
        flush(false);
        screen.busy("writing");
        break;
      case "tool-call":
        endAnswer();
        calls.set(event.callId, { toolName: event.toolName, input: event.input });
        screen.busy(toolActivity(event.toolName, event.input));
        break;
      case "tool-result": {
        const call = calls.get(event.callId);
        calls.delete(event.callId);
        screen.print(
          color(event.ok ? 32 : 31, toolLine(event.toolName, call?.input, event.ok, event.output)),
        );
        screen.busy("thinking");
        break;
      }
      case "provider-retry":
        screen.print(
          color(
            33,
            `↻ ${event.provider}: ${event.cause}; retrying in ${Math.round(event.delayMs / 100) / 10} s`,
          ),
        );
        break;
      case "provider-fallback":
        screen.print(color(33, `↪ ${event.from} failed (${event.cause}); trying ${event.to}`));
        break;
      case "approval-request":
        endAnswer();
        screen.print(
          color(
            35,
            `? approval needed: ${event.summary} (${event.rule}); expires ${relativeTime(event.expiresAt)}`,
          ),
        );
        screen.busy("waiting for approval");
        break;
      case "approval-resolved":
        screen.busy("thinking");
        break;
      case "question":
        endAnswer();
        break;
      case "plan":
        screen.print(event.items.map((item) => `  ${item.done ? "☑" : "☐"} ${item.text}`).join("\n"));
        break;
      case "memory-receipt":
        if (options.showReceipts) screen.print(color(event.kind === "failed" ? 31 : 32, `  ${event.text}`));
        break;
      case "notice":
        endAnswer();
        shownNotices.add(event.message);
        screen.print(color(event.level === "error" ? 31 : event.level === "warn" ? 33 : 90, event.message));
        break;
      case "task-end": {
        endAnswer();
        screen.print(banner(event, options.colors, reasonShownAbove(event, shownNotices)));
        shownNotices.clear();
        screen.idle();
        break;
      }
      default:
        break;
    }
  };
}
