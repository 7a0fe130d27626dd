import { platform } from "node:os";
import type { Clock } from "../agent/clock.js";
import type { EventBus } from "../agent/events.js";
import type { Agent, AgentHooks } from "../agent/runtime.js";
import type { ResolvedConfig } from "../config/schema.js";
import type { SkillService } from "../skills/service.js";
import { assembleSystemPrompt, readSoul } from "../soul/soul.js";
import type { BackgroundWork } from "./background.js";
import type { Logger } from "./logger.js";
import type { MemoryParts } from "./memory.js";
import { recallOrNotice, rememberTask } from "./memory-hooks.js";

export interface TaskHookWiring {
  soulDirectory: string;
  config: ResolvedConfig;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  skills: Pick<SkillService, "promptSection">;
  memory: MemoryParts | null;
  background: BackgroundWork;
  /** Run memory extraction after each task (chat, daemon); `mercury run` leaves the job queued. */
  extractAfterTasks: boolean;
  agent: () => Agent;
}

/**
 * What every task gets from the application: the system prompt (soul files re-read, recalled
 * memories, the skills catalogue) and, after the task, the episode recorded and — when asked for —
 * memory extraction and embeddings started in the background.
 */
export function taskHooks(wiring: TaskHookWiring): AgentHooks {
  const { config, bus, clock, logger, skills, background } = wiring;
  const memory = wiring.memory?.service ?? null;
  return {
    systemPrompt: async ({ cwd, toolNames, userKey, input }) => {
      const recalled = memory
        ? await recallOrNotice(memory, bus, clock, { userKey, input, tokens: config.memory.promptTokens })
        : { section: "" };
      return assembleSystemPrompt(readSoul(wiring.soulDirectory), {
        cwd,
        platform: platform(),
        date: clock.now().toISOString().slice(0, 10),
        toolNames,
        memorySection: recalled.section,
        skillsSection: skills.promptSection(cwd),
      });
    },
    ...(memory
      ? {
          afterTask: async (report, _messages, userKey) => {
            rememberTask(memory, wiring.agent(), report, userKey, clock);
            if (!wiring.extractAfterTasks || !config.memory.extractAutomatically) return;
            // Background failures go to the log and to the user's channels: the job stays queued.
            const failed = (what: string) => (error: unknown) => {
              const message = `${what}: ${error instanceof Error ? error.message : String(error)}`;
              logger.error({ component: "memory", error }, what);
              bus.emit({
                type: "notice",
                level: "warn",
                message,
                taskId: report.taskId,
                sessionId: report.sessionId,
                userKey,
                at: clock.now().toISOString(),
              });
            };
            background.track(
              (wiring.memory?.index.embedPending({ signal: background.signal }) ?? Promise.resolve(0)).then(
                (embedded) => logger.info({ component: "memory", embedded }, "vectors computed"),
                failed("computing memory vectors failed; memories stay lexical until it works"),
              ),
            );
            background.track(
              memory
                .runPendingExtractions(background.signal)
                .then(
                  (summary) => logger.info({ component: "memory", summary }, "extraction run"),
                  failed("memory extraction failed; the job stays queued and is retried"),
                ),
            );
          },
        }
      : {}),
  };
}
