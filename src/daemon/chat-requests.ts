import type { MercuryApp } from "../app/container.js";
import {
  currentModelLine,
  type SessionSummary,
  switchPrimaryModel,
} from "../channels/cli/session-commands.js";
import { previewUndo, restoreUndo, UndoError, type UndoPreview } from "../channels/cli/undo-command.js";
import type { DaemonGateway } from "../channels/gateway.js";
import type { ChatRequest } from "./protocol.js";
import { socketChannel, socketUserKey } from "./socket-server.js";

/** What the daemon answers to the attached chat's /model, /resume and /undo. */
export type ChatReply =
  | { line: string }
  | { sessions: SessionSummary[]; current: string | null }
  | { preview: UndoPreview }
  | { line: string }
  /** A refusal worded for the person (no such task, files changed since, a task running). */
  | { refused: string };

/**
 * The in-process chat's /model, /resume and /undo, served to a terminal attached over the socket.
 * The daemon is one process for every channel, so a model switched here is the daemon's (Telegram
 * too) until it restarts; nothing is saved.
 */
export async function handleChatRequest(
  app: MercuryApp,
  gateway: DaemonGateway,
  request: ChatRequest,
): Promise<ChatReply> {
  switch (request.type) {
    case "model": {
      const scope = "for this daemon, Telegram too, until it restarts";
      if (request.model === undefined) return { line: currentModelLine(app, scope) };
      if (gateway.runningTasks().length > 0)
        return { refused: "a task is running; /stop it (or wait) before switching the model" };
      return { line: switchPrimaryModel(app, request.model, scope) };
    }
    case "sessions":
      return {
        sessions: app.agent.transcriptStore.recentSessions(socketUserKey, socketChannel, 10),
        current: (await gateway.status(socketUserKey)).sessionId,
      };
    case "undo-preview":
    case "undo-restore":
      try {
        return request.type === "undo-preview"
          ? { preview: previewUndo(app.database, request.task) }
          : { line: restoreUndo(app.database, request.taskId) };
      } catch (error) {
        if (error instanceof UndoError) return { refused: error.message };
        throw error;
      }
  }
}
