import type { AgentEvent } from "../../agent/events.js";
import { endCauseLabel } from "../end-cause.js";

/**
 * A sub-agent's events travel on the same bus as its parent's (its task id is `<parent>/child-N`).
 * Rendered as the parent's, its answer was written into the parent's (on `mercury run`'s stdout the
 * child's text came before the real answer) and its end printed a full "✓ responded" banner while
 * the parent was still working: it read as the task having ended twice. The terminal shows a child's
 * tool calls and its end as one labelled line each; its text reaches the person through the parent's
 * delegate_task result, and what needs a person (approvals, questions) is shown as usual.
 */

/** "child-1" for a sub-agent's event; null for the task's own. */
export function subagentLabel(event: AgentEvent): string | null {
  const slash = event.taskId.indexOf("/child-");
  return slash < 0 ? null : event.taskId.slice(slash + 1);
}

export type SubagentView =
  /** Shown as the parent's own would be (it needs the person, or says something about the provider). */
  | { kind: "as-own" }
  /** Not shown: the child's text and steps, which the parent's tool result carries. */
  | { kind: "hidden" }
  /** A tool line: the renderer's own, after this prefix. */
  | { kind: "tool-result"; prefix: string }
  /** One line in a colour (SGR code). */
  | { kind: "line"; text: string; tone: number };

export function subagentView(event: AgentEvent, label: string): SubagentView {
  const prefix = `  ↳ ${label} `;
  switch (event.type) {
    case "tool-call":
    case "approval-request":
    case "approval-resolved":
    case "question":
    case "memory-receipt":
    case "provider-retry":
    case "provider-fallback":
      return { kind: "as-own" };
    case "tool-result":
      return { kind: "tool-result", prefix };
    case "notice":
      return {
        kind: "line",
        text: `${prefix}${event.message}`,
        tone: event.level === "error" ? 31 : event.level === "warn" ? 33 : 90,
      };
    case "task-end": {
      const glyph = { completed: "✓", responded: "✓", paused: "⏸", failed: "✗", cancelled: "■" }[
        event.outcome
      ];
      const tone =
        event.outcome === "failed"
          ? 31
          : event.outcome === "paused" || event.outcome === "cancelled"
            ? 33
            : 90;
      const reason = event.reason ? `: ${event.reason}` : "";
      return {
        kind: "line",
        text: `${prefix}${glyph} sub-agent ${event.outcome} (${endCauseLabel(event)})${reason}`,
        tone,
      };
    }
    default:
      return { kind: "hidden" };
  }
}
