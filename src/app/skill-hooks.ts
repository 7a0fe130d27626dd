import type { Clock } from "../agent/clock.js";
import type { EventBus } from "../agent/events.js";
import type { AgentHooks } from "../agent/runtime.js";
import type { SkillService, TaskEnd } from "../skills/service.js";
import type { AnyTool } from "../tools/types.js";

/** What the hooks use of skills: SkillService, or LazySkills (skills/lazy.ts) which loads it when needed. */
export interface SkillsForTasks {
  /** Optional: loads what the synchronous prompt section needs for `cwd` (LazySkills). */
  prepare?(cwd: string): Promise<void>;
  taskTools(
    base: readonly AnyTool[],
    task: { cwd: string; userKey: string; taskId?: string },
  ): AnyTool[] | Promise<AnyTool[]>;
  finishTask(
    end: TaskEnd,
  ): ReturnType<SkillService["finishTask"]> | Promise<ReturnType<SkillService["finishTask"]>>;
}

/**
 * Adds skills to the agent's hooks: per-task tools (activate_skill, propose_skill, allowed-tools
 * narrowing) and, after each task, the outcome recorded for the skills it used and its proposals
 * turned into drafts (only after a verified completion). The user is told of both as notices.
 */
export function withSkillHooks(
  skills: SkillsForTasks,
  bus: EventBus,
  clock: Clock,
  hooks: AgentHooks,
): AgentHooks {
  const after = hooks.afterTask;
  return {
    ...hooks,
    // A narrowed task (scheduled run, sub-agent) skips taskTools but its prompt still lists the skills.
    systemPrompt: async (context) => {
      await skills.prepare?.(context.cwd);
      return hooks.systemPrompt(context);
    },
    taskTools: async (base, task) =>
      await skills.taskTools(hooks.taskTools ? await hooks.taskTools(base, task) : base, task),
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
      const learned = await skills.finishTask({ ...report, userKey });
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
