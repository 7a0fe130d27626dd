import type { Logger } from "../app/logger.js";
import type { ChannelInput } from "../channels/types.js";
import { readSoul } from "../soul/soul.js";
import { errorFields } from "./error-fields.js";

/**
 * The standing instructions of heartbeat.md: its lines without headings, comments and blank lines.
 * Null when nothing is left (the file is then a way to turn heartbeats off).
 */
export function heartbeatInstructions(markdown: string): string | null {
  const lines = markdown
    .replace(/<!--[\s\S]*?-->/g, "")
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"));
  const body = lines.join("\n").trim();
  return body === "" ? null : body;
}

export function heartbeatTask(instructions: string): string {
  return `Heartbeat check-in (scheduled; nobody is waiting at the keyboard). Follow these standing instructions, then report briefly:\n${instructions}`;
}

export interface HeartbeatDeps {
  soulDirectory: string;
  intervalMinutes: number;
  logger: Logger;
  submit(input: ChannelInput): Promise<{ taskId: string; sessionId: string }>;
  /** Whether the previous heartbeat task is still running (a slow one is never stacked). */
  isRunning(taskId: string): boolean;
}

/**
 * Runs heartbeat.md every `intervalMinutes` as the owner's task on its own "heartbeat" session, so a
 * chat session's allow-all never applies to it. Its answer is delivered like any other (the ledger
 * keeps it until a terminal attaches). Returns a stop function; does nothing when the interval is 0.
 */
export function startHeartbeat(deps: HeartbeatDeps, intervalMs = deps.intervalMinutes * 60_000): () => void {
  if (deps.intervalMinutes <= 0) return () => undefined;
  let lastTaskId: string | null = null;
  const beat = async () => {
    if (lastTaskId && deps.isRunning(lastTaskId)) {
      deps.logger.info(
        { component: "heartbeat", taskId: lastTaskId },
        "previous heartbeat still running; skipped",
      );
      return;
    }
    const instructions = heartbeatInstructions(readSoul(deps.soulDirectory).heartbeat);
    if (!instructions) {
      deps.logger.info({ component: "heartbeat" }, "heartbeat.md has no instructions; nothing to do");
      return;
    }
    const { taskId } = await deps.submit({
      userKey: "owner",
      channel: "heartbeat",
      text: heartbeatTask(instructions),
    });
    lastTaskId = taskId;
    deps.logger.info({ component: "heartbeat", taskId }, "heartbeat task started");
  };
  const timer = setInterval(() => {
    beat().catch((error: unknown) =>
      deps.logger.error(
        { component: "heartbeat", ...errorFields(error) },
        "heartbeat failed; next one at the next interval",
      ),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
