import { passed } from "../../agent/completion/test-summary.js";
import type { AgentEvent } from "../../agent/events.js";
import { endCauseLabel } from "../end-cause.js";
import { relativeTime } from "./relative-time.js";
import { subagentLabel, subagentView } from "./subagent-events.js";
import { toolLine } from "./tool-line.js";

export interface RendererOutput {
  /** The answer text (stdout). */
  text(chunk: string): void;
  /** Everything else: tool activity, notices, banners (stderr). */
  info(line: string): void;
}

const color = (code: number, text: string, enabled: boolean) =>
  enabled ? `\x1b[${code}m${text}\x1b[0m` : text;

/** Renders the event stream for a terminal; incremental text goes straight out as it arrives. */
export function createTerminalRenderer(
  output: RendererOutput,
  options: { colors: boolean; showReceipts: boolean },
) {
  let midLine = false;
  // Notices already on screen for this task: the banner does not repeat them as its reason.
  const shownNotices = new Set<string>();
  const calls = new Map<string, unknown>();
  const endLine = () => {
    if (midLine) output.text("\n");
    midLine = false;
  };
  return (event: AgentEvent): void => {
    const child = subagentLabel(event);
    if (child !== null) {
      const view = subagentView(event, child);
      if (view.kind === "hidden") return;
      if (view.kind === "line") {
        endLine();
        output.info(color(view.tone, view.text, options.colors));
        return;
      }
      if (view.kind === "tool-result" && event.type === "tool-result") {
        const input = calls.get(event.callId);
        calls.delete(event.callId);
        endLine();
        output.info(
          color(
            event.ok ? 32 : 31,
            `${view.prefix}${toolLine(event.toolName, input, event.ok, event.output)}`,
            options.colors,
          ),
        );
        return;
      }
    }
    switch (event.type) {
      case "text-delta":
        output.text(event.text);
        midLine = !event.text.endsWith("\n");
        break;
      case "tool-call":
        endLine();
        calls.set(event.callId, event.input);
        break;
      case "tool-result": {
        // One line per call, as in the chat: what ran and how it ended; failures red.
        const input = calls.get(event.callId);
        calls.delete(event.callId);
        endLine();
        output.info(
          color(event.ok ? 32 : 31, toolLine(event.toolName, input, event.ok, event.output), options.colors),
        );
        break;
      }
      case "provider-retry":
        output.info(
          color(
            33,
            `↻ ${event.provider}: ${event.cause}; retrying in ${Math.round(event.delayMs / 100) / 10}s`,
            options.colors,
          ),
        );
        break;
      case "provider-fallback":
        output.info(color(33, `↪ ${event.from} failed (${event.cause}); trying ${event.to}`, options.colors));
        break;
      case "approval-request":
        endLine();
        output.info(
          color(
            35,
            `? approval needed: ${event.summary} (${event.rule}); expires ${relativeTime(event.expiresAt)}`,
            options.colors,
          ),
        );
        break;
      case "question":
        endLine();
        output.info(
          color(
            35,
            `? ${event.question}${event.choices.length > 0 ? ` [${event.choices.join(" / ")}]` : ""}`,
            options.colors,
          ),
        );
        break;
      case "plan":
        output.info(event.items.map((item) => `  ${item.done ? "☑" : "☐"} ${item.text}`).join("\n"));
        break;
      case "memory-receipt":
        if (options.showReceipts)
          output.info(color(event.kind === "failed" ? 31 : 32, `  ${event.text}`, options.colors));
        break;
      case "notice":
        endLine();
        shownNotices.add(event.message);
        output.info(
          color(
            event.level === "error" ? 31 : event.level === "warn" ? 33 : 90,
            event.message,
            options.colors,
          ),
        );
        break;
      case "task-end":
        endLine();
        output.info(banner(event, options.colors, reasonShownAbove(event, shownNotices)));
        shownNotices.clear();
        break;
      default:
        break;
    }
  };
}

/** The loop announces a failure as a notice and ends with it as the reason: print it once. */
export function reasonShownAbove(
  event: Extract<AgentEvent, { type: "task-end" }>,
  shown: ReadonlySet<string>,
): boolean {
  if (!event.reason) return false;
  return shown.has(event.reason) || shown.has(`Paused: ${event.reason}`);
}

/** How the provider chain words a step no provider answered (src/model/chain.ts). */
const providerFailurePrefix = "every provider failed: ";

/**
 * The banner's first line. A failure of the model provider (endCauseLabel, shared with Telegram) says
 * so in words, its cause once: its stream-level end cause ("interrupted") read as if the user or the
 * task had stopped it.
 */
function headline(event: Extract<AgentEvent, { type: "task-end" }>, reasonShown: boolean): string {
  const label = endCauseLabel(event);
  if (label !== event.endCause) {
    const cause = event.reason?.startsWith(providerFailurePrefix)
      ? event.reason.slice(providerFailurePrefix.length)
      : event.reason;
    if (reasonShown) return `${event.outcome}: ${label} (the cause is above)`;
    return `${event.outcome}: ${label}${cause ? `: ${cause}` : ""}`;
  }
  return `${event.outcome} (${label})${event.reason && !reasonShown ? `: ${event.reason}` : ""}`;
}

export function banner(
  event: Extract<AgentEvent, { type: "task-end" }>,
  colors: boolean,
  reasonShown = false,
): string {
  const glyph = { completed: "✓", responded: "✓", paused: "⏸", failed: "✗", cancelled: "■" }[event.outcome];
  const tone =
    event.outcome === "failed" ? 31 : event.outcome === "paused" || event.outcome === "cancelled" ? 33 : 32;
  const lines = [color(tone, `${glyph} ${headline(event, reasonShown)}`, colors)];
  for (const file of event.filesChanged) lines.push(`  ${file.path} +${file.added} −${file.removed}`);
  for (const check of event.verification) {
    const says = check.outputSays
      ? `, ${check.outputSays === "failures" ? "reports failures" : "ran no tests"}`
      : "";
    lines.push(`  ${passed(check) ? "✓" : "✗"} ${check.command} (exit ${check.exitCode ?? "none"}${says})`);
  }
  const cost = event.usage.costUsd > 0 ? `, $${event.usage.costUsd.toFixed(4)}` : "";
  lines.push(
    color(90, `  tokens: ${event.usage.inputTokens} in, ${event.usage.outputTokens} out${cost}`, colors),
  );
  return lines.join("\n");
}
