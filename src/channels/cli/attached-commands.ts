import type { DaemonClient } from "../../daemon/client.js";
import { pickSession, resumedLine, resumeListLines, type SessionSummary } from "./session-commands.js";
import { helpWidth, slashCommandHelp } from "./slash-commands.js";
import { isYes, previewLines, type UndoPreview, undoQuestion } from "./undo-command.js";

/** The slash commands the daemon's socket can serve; the rest need the in-process chat. */
export const attachedCommands = ["/help", "/new", "/status", "/model", "/resume", "/undo", "/stop", "/exit"];

/** Where the daemon makes a command mean more than in the in-process chat. */
const attachedHelp: Record<string, string> = {
  "/model": "show the daemon's model; /model <id> switches it (Telegram too) until the daemon restarts",
};

/** What the attached chat's commands need from it: the connection, its output and its state. */
export interface AttachedCommandContext {
  client: DaemonClient;
  info(line: string): void;
  /** Shows the prompt as a question; null restores the normal prompt. */
  asking(prompt: string | null): void;
  sessionId(): string | undefined;
  setSessionId(id: string | undefined): void;
  running(): boolean;
  /** The next line the person types answers this (the chat's line handler calls it). */
  expectAnswer(handler: (line: string) => Promise<void>): void;
  formatStatus(raw: unknown): string;
  stop(): Promise<boolean>;
  leave(): void;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

/** A reply the daemon worded for the person: a refusal or a line to show. */
function shownLine(reply: unknown): string | null {
  if (!isRecord(reply)) return null;
  if (typeof reply.refused === "string") return reply.refused;
  if (typeof reply.line === "string") return reply.line;
  return null;
}

function sessionsOf(reply: unknown): { sessions: SessionSummary[]; current: string | null } {
  if (!isRecord(reply) || !Array.isArray(reply.sessions))
    throw new Error("the daemon's reply to /resume has no session list");
  const sessions = reply.sessions.filter(
    (session): session is SessionSummary =>
      isRecord(session) &&
      typeof session.id === "string" &&
      typeof session.updatedAt === "string" &&
      (session.firstMessage === null || typeof session.firstMessage === "string"),
  );
  return { sessions, current: typeof reply.current === "string" ? reply.current : null };
}

function previewOf(reply: unknown): UndoPreview {
  const preview = isRecord(reply) ? reply.preview : undefined;
  if (
    !isRecord(preview) ||
    typeof preview.taskId !== "string" ||
    typeof preview.diff !== "string" ||
    !Array.isArray(preview.files) ||
    !Array.isArray(preview.unavailable)
  )
    throw new Error("the daemon's reply to /undo has no plan");
  return {
    taskId: preview.taskId,
    diff: preview.diff,
    files: preview.files.filter(
      (file): file is UndoPreview["files"][number] =>
        isRecord(file) &&
        typeof file.path === "string" &&
        (file.action === "restore" || file.action === "delete"),
    ),
    unavailable: preview.unavailable.filter((path): path is string => typeof path === "string"),
  };
}

/** Runs one slash command of the attached chat over the daemon's socket. */
export async function runAttachedCommand(context: AttachedCommandContext, name: string, argument: string) {
  const { client, info } = context;
  switch (name) {
    case "/exit":
    case "/quit":
      context.leave();
      return;
    case "/stop":
      info((await context.stop()) ? "stopped" : "nothing is running");
      return;
    case "/new": {
      const result = (await client.request({ type: "new-session" })) as { sessionId?: unknown };
      context.setSessionId(typeof result.sessionId === "string" ? result.sessionId : undefined);
      info(`new session ${context.sessionId() ?? ""}`);
      return;
    }
    case "/status":
      info(context.formatStatus(await client.request({ type: "status" })).trimEnd());
      return;
    case "/model": {
      const model = argument.trim();
      const reply = await client.request(model === "" ? { type: "model" } : { type: "model", model });
      info(shownLine(reply) ?? "the daemon did not say which model it uses");
      return;
    }
    case "/resume":
      await resume(context, argument.trim());
      return;
    case "/undo":
      await undo(context, argument.trim());
      return;
    case "/help":
      for (const command of attachedCommands)
        info(`${command.padEnd(helpWidth)} ${attachedHelp[command] ?? slashCommandHelp[command]}`);
      info("(attached to the daemon: the other commands need `mercury stop` and the in-process chat)");
      return;
    default:
      info(`${name} is not available while attached to the daemon; try ${attachedCommands.join(", ")}`);
  }
}

async function resume(context: AttachedCommandContext, choice: string): Promise<void> {
  const { sessions, current } = sessionsOf(await context.client.request({ type: "sessions" }));
  if (choice === "") {
    for (const line of resumeListLines(sessions, context.sessionId() ?? current)) context.info(line);
    return;
  }
  const picked = pickSession(sessions, choice, context.sessionId() ?? current);
  if ("problem" in picked) {
    context.info(picked.problem);
    return;
  }
  if (context.running()) {
    context.info("a task is running; /stop it (or wait) before switching sessions");
    return;
  }
  context.setSessionId(picked.session.id);
  context.info(resumedLine(picked.session));
}

async function undo(context: AttachedCommandContext, task: string): Promise<void> {
  const reply = await context.client.request({ type: "undo-preview", task });
  const refusal = shownLine(reply);
  if (refusal !== null) {
    context.info(refusal);
    return;
  }
  const preview = previewOf(reply);
  for (const line of previewLines(preview)) context.info(line);
  context.info(`? ${undoQuestion(preview)} [yes / no]`);
  context.asking("answer");
  // Asked, not awaited: the answer is the next line, which waits in the same queue as this one.
  context.expectAnswer(async (answer) => {
    context.asking(null);
    if (!isYes(answer)) {
      context.info("nothing restored");
      return;
    }
    const restored = await context.client.request({ type: "undo-restore", taskId: preview.taskId });
    context.info(shownLine(restored) ?? "the daemon did not say what it restored");
  });
}
