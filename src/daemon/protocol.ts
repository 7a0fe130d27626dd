import { z } from "zod";

/**
 * The local socket protocol: one JSON object per line. Requests carry an `id` the reply echoes.
 * Everyone who can open the socket (mode 0600: only its owner) acts as the owner.
 */
export const clientMessage = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("submit"),
    id: z.string(),
    text: z.string().min(1),
    cwd: z.string().optional(),
    sessionId: z.string().optional(),
  }),
  /** Start receiving events (the owner's) and any final answers left undelivered. */
  z.object({ type: z.literal("subscribe"), id: z.string() }),
  z.object({ type: z.literal("stop"), id: z.string() }),
  z.object({ type: z.literal("status"), id: z.string() }),
  z.object({ type: z.literal("new-session"), id: z.string() }),
  z.object({
    type: z.literal("approve"),
    id: z.string(),
    approvalId: z.string(),
    decision: z.enum(["once", "session", "always", "deny"]),
  }),
  z.object({ type: z.literal("answer"), id: z.string(), questionId: z.string(), answer: z.string() }),
  /** The attached chat's /model (no model: show it), /resume (the recent sessions) and /undo (preview, restore). */
  z.object({ type: z.literal("model"), id: z.string(), model: z.string().min(1).optional() }),
  z.object({ type: z.literal("sessions"), id: z.string() }),
  z.object({ type: z.literal("undo-preview"), id: z.string(), task: z.string() }),
  z.object({ type: z.literal("undo-restore"), id: z.string(), taskId: z.string().min(1) }),
  /** The sub-agents of the owner's tasks (`mercury agents list`), and stopping one. */
  z.object({ type: z.literal("agents"), id: z.string() }),
  z.object({ type: z.literal("stop-agent"), id: z.string(), agentId: z.string().min(1) }),
  /** The web dashboard (`mercury dashboard`): start it (and get a one-time login link), a new link, stop. */
  z.object({
    type: z.literal("dashboard"),
    id: z.string(),
    action: z.enum(["start", "link", "status", "stop"]),
    host: z.string().min(1).optional(),
    port: z.number().int().min(0).max(65_535).optional(),
    insecureLan: z.boolean().optional(),
  }),
]);
export type ClientMessage = z.infer<typeof clientMessage>;
export type ChatRequest = Extract<
  ClientMessage,
  { type: "model" | "sessions" | "undo-preview" | "undo-restore" }
>;

export type ServerMessage =
  | { type: "reply"; id: string; ok: true; result: unknown }
  | { type: "reply"; id: string; ok: false; error: string }
  | { type: "event"; event: unknown }
  /** A final answer from the ledger (live or left undelivered by a restart); sent once. */
  | {
      type: "answer";
      taskId: string;
      sessionId: string;
      status: string;
      text: string;
      reason: string | null;
    };

export const serverMessage = z.union([
  z.object({ type: z.literal("reply"), id: z.string(), ok: z.literal(true), result: z.unknown() }),
  z.object({ type: z.literal("reply"), id: z.string(), ok: z.literal(false), error: z.string() }),
  z.object({ type: z.literal("event"), event: z.unknown() }),
  z.object({
    type: z.literal("answer"),
    taskId: z.string(),
    sessionId: z.string(),
    status: z.string(),
    text: z.string(),
    reason: z.string().nullable(),
  }),
]);

/** Splits a byte stream into lines; a line longer than the limit is an error, not a memory leak. */
export class LineReader {
  private buffer = "";
  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLineBytes = 1024 * 1024,
  ) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let index = this.buffer.indexOf("\n");
    while (index >= 0) {
      const line = this.buffer.slice(0, index).trim();
      this.buffer = this.buffer.slice(index + 1);
      if (line !== "") this.onLine(line);
      index = this.buffer.indexOf("\n");
    }
    if (this.buffer.length > this.maxLineBytes) {
      this.buffer = "";
      throw new Error(`a protocol line exceeded ${this.maxLineBytes} bytes`);
    }
  }
}
