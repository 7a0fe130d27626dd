import type { Clock } from "../agent/clock.js";
import type { EventBus } from "../agent/events.js";
import type { Agent, TaskReport } from "../agent/runtime.js";
import type { MemoryService } from "../memory/service.js";
import { createMemoryForgetTool } from "../tools/memory-forget.js";
import { createMemorySaveTool } from "../tools/memory-save.js";
import { createMemorySearchTool } from "../tools/memory-search.js";
import type { AnyTool } from "../tools/types.js";
import { messageText, transcriptExcerpt } from "./memory.js";

export function memoryTools(memory: MemoryService): AnyTool[] {
  return [createMemorySearchTool(memory), createMemorySaveTool(memory), createMemoryForgetTool(memory)];
}

/**
 * After every task: the turn goes into the episodic archive, and an extraction job is queued
 * (persisted; it runs now in chat and the daemon, later otherwise — `mercury memory stats` shows it).
 */
export function rememberTask(
  memory: MemoryService,
  agent: Agent,
  report: TaskReport,
  userKey: string,
  clock: Clock,
): void {
  // A sub-agent's "user" turns are its parent agent's words, not the person's: they are neither archived
  // as the person's turns nor mined as "user-stated" facts (the parent's own task covers the conversation).
  if (agent.transcriptStore.getSession(report.sessionId)?.channel === "subagent") return;
  const stored = agent.transcriptStore
    .load(report.sessionId)
    .filter((entry) => entry.taskId === report.taskId);
  const at = clock.now().toISOString();
  for (const entry of stored) {
    const role = entry.message.role;
    if (role !== "user" && role !== "assistant") continue;
    const text = messageText(entry.message);
    if (text.trim() === "") continue;
    memory.recordEpisode({
      userKey,
      sessionId: report.sessionId,
      messageId: entry.id,
      role,
      text,
      createdAt: at,
    });
  }
  const excerpt = transcriptExcerpt(stored.map((entry) => entry.message));
  if (excerpt.trim() === "") return;
  memory.enqueueExtraction({
    userKey,
    sessionId: report.sessionId,
    messageIds: stored.map((entry) => entry.id),
    transcriptExcerpt: excerpt,
  });
}

/**
 * Memories for the system prompt. If recall fails (an embedding server down), the task still runs,
 * and the user sees why it runs without memories: a notice, never a silent empty section.
 */
export async function recallOrNotice(
  memory: MemoryService,
  bus: EventBus,
  clock: Clock,
  query: { userKey: string; input: string; tokens: number },
): Promise<{ section: string }> {
  try {
    return await memory.recall({ userKey: query.userKey, query: query.input, tokenBudget: query.tokens });
  } catch (error) {
    bus.emit({
      type: "notice",
      level: "warn",
      message: `memory recall failed, answering without memories: ${error instanceof Error ? error.message : String(error)}`,
      taskId: "memory",
      sessionId: "",
      userKey: query.userKey,
      at: clock.now().toISOString(),
    });
    // The profile needs no search: core facts still reach the prompt.
    return {
      section: memory.profile({ userKey: query.userKey, tokenBudget: Math.min(query.tokens, 300) }).section,
    };
  }
}
