import type { Clock } from "../agent/clock.js";
import type { EventBus } from "../agent/events.js";
import type { AgentHooks } from "../agent/runtime.js";
import type { SkillService } from "../skills/service.js";

/**
 * Adds skills to the agent's hooks: per-task tools (activate_skill, propose_skill, allowed-tools
 * narrowing) and, after each task, the outcome recorded for the skills it used and its proposals
 * turned into drafts (only after a verified completion). The user is told of both as notices.
 */
export function withSkillHooks(
  skills: SkillService,
  bus: EventBus,
  clock: Clock,
  hooks: AgentHooks,
): AgentHooks {
  const after = hooks.afterTask;
  return {
    ...hooks,
    taskTools: async (base, task) =>
      skills.taskTools(hooks.taskTools ? await hooks.taskTools(base, task) : base, task),
    afterTask: async (report, messages, userKey) => {
      const notify = (level: "info" | "warn", message: string) =>
        bus.emit({
          type: "notice",
          level,
          message,
          taskId: report.taskId,
          sessionId: report.sessionId,
          userKey,
          at: clock.now().toISOString(),
        });
      const learned = skills.finishTask({ ...report, userKey });
      for (const draft of learned.drafts) {
        notify(
          "info",
          `skill draft ${draft.id} (${draft.kind} "${draft.name}") waits for your review: mercury skills review`,
        );
      }
      if (learned.dropped) notify("info", learned.dropped);
      for (const name of learned.flagged) {
        notify(
          "warn",
          `skill "${name}" keeps failing (3 or more of its last 5 uses); see \`mercury skills show ${name}\``,
        );
      }
      await after?.(report, messages, userKey);
    },
  };
}
